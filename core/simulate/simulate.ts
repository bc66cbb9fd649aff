import { FAMILY_NAMES } from '../families/family.js';
import { poolMetrics, type PooledMetrics } from '../metrics/pooled-metrics.js';
import { sessionMetrics } from '../metrics/session-metrics.js';
import { policyFactory, type PolicySpec } from '../policies/registry.js';
import { createRng } from '../random/rng.js';
import { runSession } from '../session/run-session.js';
import { drawClassSequence } from '../stream/class-sequence.js';
import type { StreamConfig } from '../stream/stream-config.js';
import { drawDirichletClasses } from './dirichlet-classes.js';

/** Where the simulated class sequences come from. */
export type StreamPrior =
  /** The benchmark's realized generator (3 hot / 5 trap, forced early trap). */
  | { readonly kind: 'benchmark'; readonly config: StreamConfig }
  /** Appendix A.1's prior: rates ~ symmetric Dirichlet(alpha) over N classes. */
  | { readonly kind: 'dirichlet'; readonly alpha: number; readonly classCount: number; readonly length: number };

export interface SimulationSpec {
  readonly policy: PolicySpec;
  readonly prior: StreamPrior;
  readonly streams: number;
  /** The session's budget B (for the benchmark prior, the generator keeps its own B). */
  readonly budget: number;
  readonly charge: number;
  /** Stream i uses seed `seed + i`, so seed 2000 with 24 streams is the evaluation panel. */
  readonly seed: number;
}

export interface SimulationResult {
  readonly meanUtility: number;
  readonly utilityStandardError: number;
  readonly meanNet: number;
  readonly netStandardError: number;
  readonly pooled: PooledMetrics;
}

function classesFor(prior: StreamPrior, seed: number): Uint8Array {
  if (prior.kind === 'benchmark') return drawClassSequence(seed, prior.config).classes;
  return drawDirichletClasses(createRng(seed), prior.alpha, prior.classCount, prior.length);
}

function meanAndStandardError(values: readonly number[]): [number, number] {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n < 2) return [mean, 0];
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return [mean, Math.sqrt(variance / n)];
}

/** Plays a reference policy over many streams in process; N is disclosed to the policy. */
export function simulate(spec: SimulationSpec): SimulationResult {
  const classCount = spec.prior.kind === 'benchmark' ? FAMILY_NAMES.length : spec.prior.classCount;
  const rules = { budget: spec.budget, charge: spec.charge };
  const policyFor = policyFactory(spec.policy, rules);
  const metrics = Array.from({ length: spec.streams }, (_, i) => {
    const classes = classesFor(spec.prior, spec.seed + i);
    return sessionMetrics(runSession(classes, { ...rules, classCount }, policyFor(classes)));
  });
  const [meanUtility, utilityStandardError] = meanAndStandardError(metrics.map((m) => m.utility));
  const [meanNet, netStandardError] = meanAndStandardError(metrics.map((m) => m.net));
  return { meanUtility, utilityStandardError, meanNet, netStandardError, pooled: poolMetrics(metrics) };
}

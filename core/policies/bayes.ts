import { InputError } from '../errors.js';
import { sessionMetrics } from '../metrics/session-metrics.js';
import type { Observation } from '../session/observation.js';
import { runSession } from '../session/run-session.js';
import type { SessionSetting } from '../session/session-state.js';
import { bayesTable, type BayesTable, type BeliefState, type BuildChoice } from './bayes-dp.js';
import type { Policy } from './policy.js';

/*
 * The online Bayesian comparator (Appendix B.5's competence gate): an agent
 * with the model's information — the class history, T, B, K and the disclosed
 * N — and a symmetric Dirichlet(alpha) prior over the N class rates, playing
 * the exact Bayes-optimal policy (bayes-dp.ts). Decisions read one solved
 * table per (T, B, K, N, alpha, cap), so a decision is a pure function of the
 * observation.
 */

export interface BayesOptions {
  /** The authors' forced build of a class arriving with this many earlier sightings; omitted or null: exact. */
  readonly cap?: number | null;
}

export function bayesPolicy(alpha: number, options: BayesOptions = {}): Policy {
  if (!(alpha > 0) || !Number.isFinite(alpha)) throw new InputError(`bayes: alpha must be positive, got ${alpha}`);
  const cap = options.cap ?? null;
  if (cap !== null && (!Number.isInteger(cap) || cap < 1)) throw new InputError(`bayes: cap must be a positive integer, got ${cap}`);
  // The table of the last setting seen, so the hot path skips the shared cache's key.
  let last: { key: readonly number[]; table: BayesTable } | undefined;
  return {
    name: cap === null ? `bayes(alpha=${alpha})` : `bayes(alpha=${alpha}, cap=${cap})`,
    decide: (o) => {
      const classCount = o.classCount;
      if (classCount === null) throw new InputError('bayes: the policy needs the number of classes N to be disclosed');
      const budget = o.held.length + o.remaining;
      const key = [o.horizon, budget, o.charge, classCount];
      if (!last || key.some((v, i) => v !== last?.key[i])) {
        last = { key, table: bayesTable({ horizon: o.horizon, budget, charge: o.charge, classCount, alpha, cap }) };
      }
      return bayesChoice(last.table, o).commit ? 'commit' : 'pass';
    },
  };
}

/** The belief state before the current arrival, and the arriving class's earlier sightings. */
export function beliefBefore(o: Observation): { state: BeliefState; count: number } {
  const classCount = o.classCount ?? Infinity;
  if (o.counts.length > classCount) throw new InputError(`bayes: ${o.counts.length} classes seen but N = ${classCount}`);
  const held = new Set(o.held);
  let builtItems = 0;
  const unbuilt: number[] = [];
  for (let label = 0; label < o.counts.length; label++) {
    const count = (o.counts[label] as number) - (label === o.label ? 1 : 0);
    if (held.has(label)) builtItems += count;
    else if (count > 0) unbuilt.push(count);
  }
  return { state: { built: held.size, builtItems, unbuilt }, count: o.occurrence - 1 };
}

/** The table's pass and build values at an observation. */
export function bayesChoice(table: BayesTable, o: Observation): BuildChoice {
  const { state, count } = beliefBefore(o);
  return table.choose(state, count);
}

/** What the policy collects on a class sequence (T = its length), in items and in net of the charge. */
export function bayesRealized(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  alpha: number,
  options: BayesOptions = {},
): { collected: number; net: number; commitments: number } {
  const metrics = sessionMetrics(runSession(classes, setting, bayesPolicy(alpha, options)));
  return { collected: metrics.utility, net: metrics.net, commitments: metrics.commitments };
}

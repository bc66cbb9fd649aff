import type { SessionMetrics } from '../../core/metrics/session-metrics.js';
import type { ScriptMetrics } from '../../core/scripts/script-metrics.js';

/** One seed's session in an arm (one cell: model, rung, B, K), scored by core/metrics. */
export interface SeedSession {
  readonly seed: number;
  readonly metrics: SessionMetrics;
  /** R3's own diagnostics, for R3 sessions. */
  readonly script?: ScriptMetrics;
}

/** An arm's sessions in ascending seed order; a seed twice in one arm is an error. */
export function sortedBySeed(arm: readonly SeedSession[]): SeedSession[] {
  const sorted = [...arm].sort((x, y) => x.seed - y.seed);
  sorted.forEach((session, i) => {
    if (i > 0 && sorted[i - 1]?.seed === session.seed) throw new Error(`arm: seed ${session.seed} appears twice`);
  });
  return sorted;
}

/**
 * Pairs two arms by seed. A paired comparison is on identical streams, so the
 * arms must hold the same seeds: a seed missing from one arm is an error (rerun
 * it, or leave it out of both), not something to drop silently.
 */
export function pairBySeed(a: readonly SeedSession[], b: readonly SeedSession[]): { seed: number; a: SessionMetrics; b: SessionMetrics }[] {
  const left = sortedBySeed(a);
  const right = sortedBySeed(b);
  const unmatched = [
    ...left.filter((x) => !right.some((y) => y.seed === x.seed)),
    ...right.filter((y) => !left.some((x) => x.seed === y.seed)),
  ].map((s) => s.seed);
  if (unmatched.length > 0) throw new Error(`paired arms differ in seeds: ${unmatched.join(', ')}`);
  return left.map((x, i) => ({ seed: x.seed, a: x.metrics, b: (right[i] as SeedSession).metrics }));
}

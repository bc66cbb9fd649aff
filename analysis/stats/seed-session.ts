import type { SessionMetrics } from '../../core/metrics/session-metrics.js';
import type { OnlineMetrics } from '../../core/metrics/online-metrics.js';
import type { ScriptMetrics } from '../../core/scripts/loop-metrics.js';

/** One seed's session in an arm (one cell: model, rung, B, K), scored by core/metrics. */
export interface SeedSession {
  readonly seed: number;
  readonly metrics: SessionMetrics;
  /** R3's own diagnostics, for R3 sessions. */
  readonly script?: ScriptMetrics;
  /** The stream it was played on: its content hash and its class sequence (one base-36 character per item). */
  readonly stream?: { readonly hash: string; readonly classes: string };
  /** Against policy/optimal on the same stream, where its net was computed. */
  readonly online?: OnlineMetrics;
}

/** An arm's sessions in ascending seed order; a seed twice in one arm is an error. */
export function sortedBySeed(arm: readonly SeedSession[]): SeedSession[] {
  const sorted = [...arm].sort((x, y) => x.seed - y.seed);
  sorted.forEach((session, i) => {
    if (i > 0 && sorted[i - 1]?.seed === session.seed) throw new Error(`arm: seed ${session.seed} appears twice`);
  });
  return sorted;
}

/** Two arms' sessions on the seeds they can be paired on, and why the others were not. */
export interface SeedPairing {
  readonly a: SeedSession[];
  readonly b: SeedSession[];
  /** Sessions left out: their seed is in one arm only, or was played on different streams. */
  readonly dropped: number;
  /** Seeds in both arms whose streams differ even in the class sequence: no pairing. */
  readonly refused: readonly number[];
  /** Seeds paired on the same class sequence although the rendered items differ (a re-rendered arm). */
  readonly latentOnly: readonly number[];
}

/**
 * A paired comparison is on identical streams: two arms are paired by seed
 * only where both sessions of the seed were played on the same stream (equal
 * hashes). Where the hashes differ but the hidden class sequence is the same —
 * an arm that re-rendered some items' parameters, as the paper's Opus R3 arm
 * did — the seed is paired and listed, since every allocation measure depends
 * on the class sequence alone; otherwise the pairing is refused and listed.
 * Sessions without a recorded stream pair by seed.
 */
export function pairSeeds(a: readonly SeedSession[], b: readonly SeedSession[]): SeedPairing {
  const right = new Map(sortedBySeed(b).map((s) => [s.seed, s]));
  const keptA: SeedSession[] = [];
  const keptB: SeedSession[] = [];
  const refused: number[] = [];
  const latentOnly: number[] = [];
  for (const left of sortedBySeed(a)) {
    const other = right.get(left.seed);
    if (!other) continue;
    if (left.stream && other.stream && left.stream.hash !== other.stream.hash) {
      if (left.stream.classes !== other.stream.classes) {
        refused.push(left.seed);
        continue;
      }
      latentOnly.push(left.seed);
    }
    keptA.push(left);
    keptB.push(other);
  }
  return { a: keptA, b: keptB, dropped: a.length + b.length - keptA.length - keptB.length, refused, latentOnly };
}

/**
 * Pairs two arms that hold the same seeds (after pairSeeds). A seed missing
 * from one arm is an error here (rerun it, or leave it out of both), not
 * something to drop silently.
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

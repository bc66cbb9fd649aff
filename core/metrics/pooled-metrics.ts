import type { SessionMetrics } from './session-metrics.js';

/** P(keep | k-th occurrence), pooled over sessions. */
export interface KeepRate {
  readonly occurrence: number;
  readonly eligible: number;
  readonly keeps: number;
  readonly rate: number | null;
}

/**
 * Measures pooled over sessions (paper §3.4, C.1). Ratios are re-pooled —
 * sums of numerators over sums of denominators — and null when undefined.
 */
export interface PooledMetrics {
  readonly sessions: number;
  /** Σ net / Σ optimum (Σ utility / Σ optimum at K = 0). */
  readonly score: number | null;
  /** Mean credited items per stream. */
  readonly itemsPerStream: number;
  readonly meanNet: number;
  readonly meanOptimum: number;
  readonly meanRegret: number;
  /** First-sight commitment among commitments. */
  readonly firstSight: number | null;
  readonly firstSightHazard: number | null;
  readonly meanLateness: number | null;
  readonly commitmentsPerSession: number;
  /** Σ commitments / Σ B. */
  readonly budgetUtilization: number;
  /** Share of sessions without any commitment. */
  readonly zeroCommitIncidence: number;
  /** Unresolved share of the decision turns reached; null without any. */
  readonly unresolvedRate: number | null;
  readonly keepByOccurrence: readonly KeepRate[];
}

const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
const ratio = (numerator: number, denominator: number) => (denominator > 0 ? numerator / denominator : null);

export function poolMetrics(sessions: readonly SessionMetrics[]): PooledMetrics {
  const n = sessions.length;
  if (n === 0) throw new Error('poolMetrics: no sessions');
  const total = (pick: (m: SessionMetrics) => number) => sum(sessions.map(pick));
  const commitments = total((m) => m.commitments);
  const longest = Math.max(...sessions.map((m) => m.keepsByOccurrence.length));
  const keepByOccurrence = Array.from({ length: longest }, (_, index) => {
    const eligible = total((m) => m.keepsByOccurrence[index]?.eligible ?? 0);
    const keeps = total((m) => m.keepsByOccurrence[index]?.keeps ?? 0);
    return { occurrence: index + 1, eligible, keeps, rate: ratio(keeps, eligible) };
  });
  const totalOptimum = total((m) => m.optimum);
  return {
    sessions: n,
    score: totalOptimum !== 0 ? total((m) => m.net) / totalOptimum : null,
    itemsPerStream: total((m) => m.utility) / n,
    meanNet: total((m) => m.net) / n,
    meanOptimum: totalOptimum / n,
    meanRegret: total((m) => m.regret) / n,
    firstSight: ratio(
      total((m) => m.firstSightCommitments),
      commitments,
    ),
    firstSightHazard: ratio(
      total((m) => m.firstSightCommitments),
      total((m) => m.firstOccurrenceTurns),
    ),
    meanLateness: ratio(
      total((m) => m.totalLateness),
      commitments,
    ),
    commitmentsPerSession: commitments / n,
    budgetUtilization: commitments / total((m) => m.budget),
    zeroCommitIncidence: sessions.filter((m) => m.commitments === 0).length / n,
    unresolvedRate: ratio(
      total((m) => m.unresolved),
      total((m) => m.decisionTurns - m.truncated),
    ),
    keepByOccurrence,
  };
}

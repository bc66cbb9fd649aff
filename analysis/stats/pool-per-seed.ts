import type { OccurrenceTally, SessionMetrics } from '../../core/metrics/session-metrics.js';
import type { SeedSession } from './seed-session.js';

const ratio = (num: number, den: number) => (den > 0 ? num / den : null);

function add(x: SessionMetrics, y: SessionMetrics): SessionMetrics {
  const tallies = Array.from(
    { length: Math.max(x.keepsByOccurrence.length, y.keepsByOccurrence.length) },
    (_, i): OccurrenceTally => ({
      eligible: (x.keepsByOccurrence[i]?.eligible ?? 0) + (y.keepsByOccurrence[i]?.eligible ?? 0),
      keeps: (x.keepsByOccurrence[i]?.keeps ?? 0) + (y.keepsByOccurrence[i]?.keeps ?? 0),
    }),
  );
  const sum = (pick: (m: SessionMetrics) => number) => pick(x) + pick(y);
  const commitments = sum((m) => m.commitments);
  const firstSightCommitments = sum((m) => m.firstSightCommitments);
  const firstOccurrenceTurns = sum((m) => m.firstOccurrenceTurns);
  const totalLateness = sum((m) => m.totalLateness);
  const budget = sum((m) => m.budget);
  return {
    budget,
    charge: x.charge,
    utility: sum((m) => m.utility),
    commitments,
    net: sum((m) => m.net),
    optimum: sum((m) => m.optimum),
    regret: sum((m) => m.regret),
    firstSightCommitments,
    firstSightRate: ratio(firstSightCommitments, commitments),
    firstOccurrenceTurns,
    firstSightHazard: ratio(firstSightCommitments, firstOccurrenceTurns),
    totalLateness,
    meanLateness: ratio(totalLateness, commitments),
    budgetUtilization: commitments / budget,
    decisionTurns: sum((m) => m.decisionTurns),
    unresolved: sum((m) => m.unresolved),
    truncated: sum((m) => m.truncated),
    keepsByOccurrence: tallies,
  };
}

/**
 * Several arms on the same seeds pooled into one (the paper's "lexical reskins
 * (pooled)"): each seed's sessions are summed into one cluster, so re-pooled
 * ratios and their cluster bootstrap treat the seed as the unit. Per-seed means
 * (items per stream) become per-seed sums: use it for ratios.
 */
export function poolPerSeed(sessions: readonly SeedSession[]): SeedSession[] {
  const bySeed = new Map<number, SessionMetrics>();
  for (const { seed, metrics } of sessions) {
    const pooled = bySeed.get(seed);
    bySeed.set(seed, pooled ? add(pooled, metrics) : metrics);
  }
  return [...bySeed].sort(([x], [y]) => x - y).map(([seed, metrics]) => ({ seed, metrics }));
}

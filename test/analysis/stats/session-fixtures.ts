import type { SessionMetrics } from '../../../core/metrics/session-metrics.js';
import type { SeedSession } from '../../../analysis/stats/seed-session.js';

/**
 * Hand-built SessionMetrics: only the fields a test works with are given, the
 * rest default to a session of 60 decision turns, B = 3, K = 0 that commits
 * nothing. Derived per-session rates are filled in from the given counts.
 */
export function metrics(fields: Partial<SessionMetrics>): SessionMetrics {
  const base = {
    budget: 3,
    charge: 0,
    utility: 0,
    commitments: 0,
    net: 0,
    optimum: 0,
    regret: 0,
    firstSightCommitments: 0,
    firstOccurrenceTurns: 0,
    totalLateness: 0,
    decisionTurns: 60,
    unresolved: 0,
    truncated: 0,
    keepsByOccurrence: [],
    ...fields,
  };
  return {
    ...base,
    firstSightRate: base.commitments > 0 ? base.firstSightCommitments / base.commitments : null,
    firstSightHazard: base.firstOccurrenceTurns > 0 ? base.firstSightCommitments / base.firstOccurrenceTurns : null,
    meanLateness: base.commitments > 0 ? base.totalLateness / base.commitments : null,
    budgetUtilization: base.commitments / base.budget,
  };
}

export const session = (seed: number, fields: Partial<SessionMetrics>): SeedSession => ({ seed, metrics: metrics(fields) });

/** An arm whose i-th seed (2000 + i) made `commitments` commitments, `firstSight` of them at first sight. */
export const firstSightArm = (counts: readonly (readonly [firstSight: number, commitments: number])[]): SeedSession[] =>
  counts.map(([firstSightCommitments, commitments], i) => session(2000 + i, { firstSightCommitments, commitments }));

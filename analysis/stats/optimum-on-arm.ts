import { FAMILY_NAMES } from '../../core/families/family.js';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { hindsightPolicy } from '../../core/policies/hindsight.js';
import { decodeClasses } from '../../core/session/compact-codes.js';
import { runSession } from '../../core/session/run-session.js';
import type { Arm } from '../arms.js';

/** What the exact hindsight optimum does on an arm's streams (Appendix E): how many classes it builds, and when. */
export interface OptimumOnArm {
  /** Mean commitments per seed (the paper's 3.00 at B = 3, K = 0 and 0.04 at K = 24). */
  readonly commitmentsPerSeed: number;
  /** Pooled first-sight hazard: it commits at first sight or never, so this is its share of eligible first occurrences. */
  readonly firstSightHazard: number | null;
  readonly firstSightCommitments: number;
  readonly firstOccurrenceTurns: number;
  /** Mean lateness of its builds (0: it builds at first sight); null when it builds nothing. */
  readonly meanLateness: number | null;
}

/** The optimum played through the session rules on each of the arm's streams, at the arm's B and K. */
export function optimumOnArm(arm: Arm): OptimumOnArm {
  const rules = { budget: arm.key.budget, charge: arm.key.charge };
  let [commitments, committed, eligible, lateness] = [0, 0, 0, 0];
  for (const session of arm.loaded) {
    const classes = decodeClasses(session.classes);
    const metrics = sessionMetrics(runSession(classes, { ...rules, classCount: FAMILY_NAMES.length }, hindsightPolicy(classes, rules)));
    commitments += metrics.commitments;
    committed += metrics.firstSightCommitments;
    eligible += metrics.firstOccurrenceTurns;
    lateness += metrics.totalLateness;
  }
  return {
    commitmentsPerSeed: arm.loaded.length > 0 ? commitments / arm.loaded.length : 0,
    firstSightHazard: eligible > 0 ? committed / eligible : null,
    firstSightCommitments: committed,
    firstOccurrenceTurns: eligible,
    meanLateness: commitments > 0 ? lateness / commitments : null,
  };
}

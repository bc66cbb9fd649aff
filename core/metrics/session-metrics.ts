import type { SessionRecord } from '../session/session-record.js';
import { advance, startSession, turnKind } from '../session/session-state.js';
import { hindsightOptimum } from './hindsight-optimum.js';

/** Decisions at a given occurrence number: how many were eligible and how many kept. */
export interface OccurrenceTally {
  readonly eligible: number;
  readonly keeps: number;
}

/**
 * Per-session measures of paper §3.4, Appendix C.1 and E. A turn is eligible
 * when the class is unheld and budget remains; an unresolved turn (a model-level
 * failure, defaulted to pass) stays eligible as a pass, and only turns the session
 * never reached (truncated by a cap or a mechanical failure) leave the denominators.
 */
export interface SessionMetrics {
  readonly budget: number;
  readonly charge: number;
  /** Credited items (equation 1). */
  readonly utility: number;
  readonly commitments: number;
  /** utility - K * commitments. */
  readonly net: number;
  /** Exact hindsight (net) optimum. */
  readonly optimum: number;
  /** optimum - net. */
  readonly regret: number;
  /** Commitments made at a class's first occurrence. */
  readonly firstSightCommitments: number;
  /** First-sight commitment among commitments; null without commitments. */
  readonly firstSightRate: number | null;
  /** Eligible first-occurrence turns: the first-sight hazard's denominator. */
  readonly firstOccurrenceTurns: number;
  /** Committed share of eligible first-occurrence turns; null when there were none. */
  readonly firstSightHazard: number | null;
  /** Sum over commitments of (occurrence - 1). */
  readonly totalLateness: number;
  readonly meanLateness: number | null;
  /** commitments / B. */
  readonly budgetUtilization: number;
  readonly decisionTurns: number;
  /** Decision turns whose reply broke the format (the paper's unparsed count): every unresolved turn, and those with several decisive calls. */
  readonly unresolved: number;
  /** Decision turns never reached because the session stopped early. */
  readonly truncated: number;
  /** Index k - 1 holds the tally for the k-th occurrence. */
  readonly keepsByOccurrence: readonly OccurrenceTally[];
}

/**
 * Scores a session by replaying the rules over its classes with its recorded
 * decisions, so a record whose decisions do not fit its stream is rejected.
 */
export function sessionMetrics(record: SessionRecord): SessionMetrics {
  const { budget, charge } = record.rules;
  let state = startSession(record.rules);
  const occurrences: number[] = []; // by class id
  const tallies: { eligible: number; keeps: number }[] = [];
  let next = 0;
  let firstSightCommitments = 0;
  let firstOccurrenceTurns = 0;
  let totalLateness = 0;
  let unresolved = 0;
  let truncated = 0;
  for (let index = 0; index < record.classes.length; index++) {
    const classId = record.classes[index] as number;
    const occurrence = (occurrences[classId] ?? 0) + 1;
    occurrences[classId] = occurrence;
    if (turnKind(state, classId) !== 'decide') {
      state = advance(state, classId);
      continue;
    }
    const decision = record.decisions[next++];
    if (decision?.t !== index + 1 || decision.classId !== classId) {
      throw new Error(`session record: no decision for turn ${index + 1}`);
    }
    if (!decision.resolved && decision.action !== 'pass') {
      throw new Error(`session record: unresolved decision at turn ${index + 1} must default to pass`);
    }
    if (decision.failure === 'truncated') {
      truncated++;
    } else {
      // An unresolved turn stays eligible, as a pass (HARNESS.md: only mechanical failures leave the denominators).
      if (decision.failure) unresolved++;
      const tally = (tallies[occurrence - 1] ??= { eligible: 0, keeps: 0 });
      tally.eligible++;
      if (occurrence === 1) firstOccurrenceTurns++;
      if (decision.action === 'commit') {
        tally.keeps++;
        totalLateness += occurrence - 1;
        if (occurrence === 1) firstSightCommitments++;
      }
    }
    state = advance(state, classId, decision.action);
  }
  if (next !== record.decisions.length) {
    throw new Error(`session record: ${record.decisions.length - next} decisions at turns that needed none`);
  }
  const commitments = state.held.length;
  const utility = state.credited;
  const net = utility - charge * commitments;
  const optimum = hindsightOptimum(record.classes, budget, charge);
  return {
    budget,
    charge,
    utility,
    commitments,
    net,
    optimum,
    regret: optimum - net,
    firstSightCommitments,
    firstSightRate: commitments > 0 ? firstSightCommitments / commitments : null,
    firstOccurrenceTurns,
    firstSightHazard: firstOccurrenceTurns > 0 ? firstSightCommitments / firstOccurrenceTurns : null,
    totalLateness,
    meanLateness: commitments > 0 ? totalLateness / commitments : null,
    budgetUtilization: commitments / budget,
    decisionTurns: record.decisions.length,
    unresolved,
    truncated,
    keepsByOccurrence: Array.from(tallies, (tally) => tally ?? { eligible: 0, keeps: 0 }),
  };
}

import { describe, expect, it } from 'vitest';
import { hindsightOptimum, optimalClasses } from '../../../core/metrics/hindsight-optimum.js';
import { poolMetrics } from '../../../core/metrics/pooled-metrics.js';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import type { DecisionRecord, SessionRecord } from '../../../core/session/session-record.js';

/*
 * A hand-built session, t = 1..8, classes A B A C A B D A (A=0, B=1, C=2, D=3), B = 2:
 *  t1 A(1st) pass · t2 B(1st) commit · t3 A(2nd) commit · t4 C closed · t5 A credit
 *  t6 B credit · t7 D closed · t8 A credit.
 * Credited: t2 t3 t5 t6 t8 = 5. Counts A4 B2 C1 D1, so the optimum is 4 + 2 = 6.
 * Commitments at occurrences 1 (B) and 2 (A): first-sight 1/2, lateness 0 and 1.
 * Eligible first occurrences: t1, t2 (t4 and t7 come after the budget ran out).
 */
const classes = [0, 1, 0, 2, 0, 1, 3, 0];
const decision = (
  t: number,
  classId: number,
  occurrence: number,
  action: 'commit' | 'pass',
  failure?: DecisionRecord['failure'],
): DecisionRecord => ({ t, classId, occurrence, action, resolved: failure === undefined, ...(failure && { failure }) });
const handBuilt = (charge = 0, firstFailure?: DecisionRecord['failure']): SessionRecord => ({
  classes,
  rules: { budget: 2, charge },
  decisions: [decision(1, 0, 1, 'pass', firstFailure), decision(2, 1, 1, 'commit'), decision(3, 0, 2, 'commit')],
});

describe('sessionMetrics on a hand-built session', () => {
  it('computes utility, optimum, timing and budget measures', () => {
    expect(sessionMetrics(handBuilt())).toEqual({
      budget: 2,
      charge: 0,
      utility: 5,
      commitments: 2,
      net: 5,
      optimum: 6,
      regret: 1,
      firstSightCommitments: 1,
      firstSightRate: 0.5,
      firstOccurrenceTurns: 2,
      firstSightHazard: 0.5,
      totalLateness: 1,
      meanLateness: 0.5,
      budgetUtilization: 1,
      decisionTurns: 3,
      unresolved: 0,
      truncated: 0,
      keepsByOccurrence: [
        { eligible: 2, keeps: 1 },
        { eligible: 1, keeps: 1 },
      ],
    });
  });

  it('nets the charge and compares with the net optimum', () => {
    // K = 1.5: net 5 - 3 = 2; optimum (4 - 1.5) + (2 - 1.5) = 3.
    expect(sessionMetrics(handBuilt(1.5))).toMatchObject({ net: 2, optimum: 3, regret: 1 });
    // K = 2: class B would net 0, so the optimum builds A alone: 2.
    expect(sessionMetrics(handBuilt(2))).toMatchObject({ net: 1, optimum: 2, regret: 1 });
  });

  it('keeps unresolved turns eligible, as passes, and counts them (only turns never reached leave the denominators)', () => {
    const metrics = sessionMetrics(handBuilt(0, 'no-decision'));
    expect(metrics).toMatchObject({ unresolved: 1, truncated: 0, firstOccurrenceTurns: 2, firstSightHazard: 0.5, decisionTurns: 3 });
    expect(metrics.keepsByOccurrence[0]).toEqual({ eligible: 2, keeps: 1 });
  });

  it('counts turns a stopped session never reached as truncated, not unresolved', () => {
    const metrics = sessionMetrics(handBuilt(0, 'truncated'));
    expect(metrics).toMatchObject({ unresolved: 0, truncated: 1, firstOccurrenceTurns: 1 });
    expect(poolMetrics([metrics]).unresolvedRate).toBe(0);
    expect(poolMetrics([sessionMetrics(handBuilt(0, 'unparsable'))]).unresolvedRate).toBe(1 / 3);
  });

  it('rejects records whose decisions do not fit the stream', () => {
    const record = handBuilt();
    expect(() => sessionMetrics({ ...record, decisions: record.decisions.slice(0, 2) })).toThrow(/no decision for turn 3/);
    expect(() => sessionMetrics({ ...record, decisions: [...record.decisions, decision(5, 0, 3, 'pass')] })).toThrow(
      /decisions at turns that needed none/,
    );
    const unresolvedCommit = { ...record, decisions: [decision(1, 0, 1, 'commit', 'unparsable'), ...record.decisions.slice(1)] };
    expect(() => sessionMetrics(unresolvedCommit)).toThrow(/must default to pass/);
  });
});

describe('hindsight optimum', () => {
  it('sums the B largest class counts at K = 0', () => {
    expect(hindsightOptimum(classes, 1, 0)).toBe(4);
    expect(hindsightOptimum(classes, 3, 0)).toBe(7);
    expect(hindsightOptimum(classes, 8, 0)).toBe(8);
  });

  it('takes the best net over at most B classes with a charge', () => {
    expect(hindsightOptimum(classes, 3, 1)).toBe(3 + 1);
    expect(hindsightOptimum(classes, 3, 4)).toBe(0);
    expect(optimalClasses(classes, 3, 4)).toEqual([]);
  });

  it("breaks count ties by the larger class id, as the paper authors' optimum does, whatever the order of appearance", () => {
    expect(optimalClasses([2, 1, 1, 2, 0], 1, 0)).toEqual([2]);
    expect(optimalClasses([1, 2, 2, 1, 0], 1, 0)).toEqual([2]);
    expect(optimalClasses([0, 5, 3, 3, 5, 0, 7], 2, 0)).toEqual([5, 3]);
    // The tie changes which class is taken, never the optimum's utility.
    expect(hindsightOptimum([1, 2, 2, 1, 0], 1, 0)).toBe(hindsightOptimum([2, 1, 1, 2, 0], 1, 0));
  });
});

describe('poolMetrics', () => {
  it('re-pools ratios over sessions, keeping zero-commit sessions in the unconditional measures', () => {
    // Second session: classes A B A, B = 1, three passes: utility 0, optimum 2, no commitment;
    // eligible turns t1 (A 1st), t2 (B 1st), t3 (A 2nd).
    const idle = sessionMetrics({
      classes: [0, 1, 0],
      rules: { budget: 1, charge: 0 },
      decisions: [decision(1, 0, 1, 'pass'), decision(2, 1, 1, 'pass'), decision(3, 0, 2, 'pass')],
    });
    const pooled = poolMetrics([sessionMetrics(handBuilt()), idle]);
    expect(pooled).toEqual({
      sessions: 2,
      score: 5 / 8,
      itemsPerStream: 2.5,
      meanNet: 2.5,
      meanOptimum: 4,
      meanRegret: 1.5,
      firstSight: 1 / 2,
      firstSightHazard: 1 / 4,
      meanLateness: 1 / 2,
      commitmentsPerSession: 1,
      budgetUtilization: 2 / 3,
      zeroCommitIncidence: 1 / 2,
      unresolvedRate: 0,
      keepByOccurrence: [
        { occurrence: 1, eligible: 4, keeps: 1, rate: 1 / 4 },
        { occurrence: 2, eligible: 2, keeps: 1, rate: 1 / 2 },
      ],
    });
  });

  it('leaves undefined ratios null', () => {
    const idle = sessionMetrics({ classes: [0], rules: { budget: 1, charge: 0 }, decisions: [decision(1, 0, 1, 'pass')] });
    expect(poolMetrics([idle])).toMatchObject({ firstSight: null, meanLateness: null, zeroCommitIncidence: 1 });
  });
});

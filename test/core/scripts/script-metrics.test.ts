import { describe, expect, it } from 'vitest';
import { scriptSessionMetrics } from '../../../core/scripts/script-metrics.js';
import type { ScriptTurn } from '../../../core/scripts/script-turn.js';

// Classes 0 1 0 2 0 1, B = 2, worked by hand below.
const classes = [0, 1, 0, 2, 0, 1];
const rules = { budget: 2, charge: 0 };
const turns: ScriptTurn[] = [
  { t: 1, classId: 0, occurrence: 1, action: 'answer', credited: false }, // eligible first sight, declined
  { t: 2, classId: 1, occurrence: 1, action: 'write', scriptId: 's1', credited: true, scriptReturned: true }, // first-sight build
  { t: 3, classId: 0, occurrence: 2, action: 'write', scriptId: 's2', credited: false, scriptReturned: true }, // build, lateness 1, wrong output
  { t: 4, classId: 2, occurrence: 1, action: 'run-refused', scriptId: 's1', credited: false }, // no writes left: not eligible
  { t: 5, classId: 0, occurrence: 3, action: 'run', scriptId: 's2', credited: false, scriptReturned: false },
  { t: 6, classId: 1, occurrence: 2, action: 'run', scriptId: 's1', credited: true, scriptReturned: true },
];

describe('R3 session metrics', () => {
  it('count builds as commitments and score what the scripts and answers earned', () => {
    const { metrics, script } = scriptSessionMetrics({ classes, rules, turns });
    expect(metrics).toMatchObject({
      utility: 2,
      commitments: 2,
      net: 2,
      optimum: 5, // classes 0 and 1: 3 + 2
      regret: 3,
      firstSightCommitments: 1,
      firstSightRate: 0.5,
      firstOccurrenceTurns: 2, // t1 and t2; t4 came with no writes left
      firstSightHazard: 0.5,
      totalLateness: 1,
      meanLateness: 0.5,
      budgetUtilization: 1,
      decisionTurns: 6,
      unresolved: 0,
      truncated: 0,
    });
    expect(metrics.keepsByOccurrence).toEqual([
      { eligible: 2, keeps: 1 },
      { eligible: 1, keeps: 1 },
    ]);
    expect(script).toEqual({
      playedTurns: 6,
      builds: 2,
      firstSightBuilds: 1,
      distinctClassesBuilt: 2,
      rebuilds: 0,
      writesRefused: 0,
      reuseRuns: 2,
      crossClassRunsRefused: 1,
      scriptRuns: 4,
      scriptReturns: 3,
      scriptCorrect: 2,
      scriptSuccessRate: 0.5,
      buildsCorrect: 1,
      rawAnswers: 1,
      rawCorrect: 0,
      rawAccuracy: 0,
      creditedByScript: 2,
      creditedByAnswer: 0,
      zeroBuild: false,
    });
  });

  it('count the turns after an early stop as truncated and charge K per build', () => {
    const { metrics, script } = scriptSessionMetrics({ classes, rules: { budget: 2, charge: 1.5 }, turns: turns.slice(0, 3) });
    expect(metrics).toMatchObject({ utility: 1, commitments: 2, net: -2, truncated: 3, decisionTurns: 6 });
    expect(metrics.optimum).toBe(3 - 1.5 + (2 - 1.5)); // both classes still pay for themselves
    expect(script.playedTurns).toBe(3);
  });

  it('count unresolved turns, rebuilds and refused writes', () => {
    const played: ScriptTurn[] = [
      { t: 1, classId: 0, occurrence: 1, action: 'unresolved', failure: 'no-decision', credited: false },
      { t: 2, classId: 1, occurrence: 1, action: 'write', scriptId: 's1', credited: false, scriptReturned: false },
      { t: 3, classId: 0, occurrence: 2, action: 'answer', credited: true },
      { t: 4, classId: 2, occurrence: 1, action: 'answer', credited: false },
      { t: 5, classId: 0, occurrence: 3, action: 'write', scriptId: 's2', credited: true, scriptReturned: true },
      { t: 6, classId: 1, occurrence: 2, action: 'write-refused', credited: false },
    ];
    const { metrics, script } = scriptSessionMetrics({ classes, rules, turns: played });
    expect(metrics).toMatchObject({
      unresolved: 1,
      utility: 2,
      commitments: 2,
      firstSightCommitments: 1,
      totalLateness: 2,
      firstOccurrenceTurns: 2,
    });
    expect(script).toMatchObject({
      writesRefused: 1,
      rebuilds: 0,
      rawAnswers: 2,
      rawCorrect: 1,
      rawAccuracy: 0.5,
      buildsCorrect: 1,
      zeroBuild: false,
    });
  });

  it('report a session without builds as zero-build, with no first-sight rate', () => {
    const declined: ScriptTurn[] = classes.map((classId, index) => ({
      t: index + 1,
      classId,
      occurrence: classes.slice(0, index + 1).filter((c) => c === classId).length,
      action: 'answer',
      credited: false,
    }));
    const { metrics, script } = scriptSessionMetrics({ classes, rules, turns: declined });
    expect(metrics.firstSightRate).toBeNull();
    expect(metrics.firstSightHazard).toBe(0);
    expect(script).toMatchObject({ zeroBuild: true, scriptSuccessRate: null, builds: 0 });
  });

  it('reject records that break the rules', () => {
    const crossRun = turns.map((turn) => (turn.t === 6 ? { ...turn, scriptId: 's2' } : turn));
    expect(() => scriptSessionMetrics({ classes, rules, turns: crossRun })).toThrow(/turn 6/);
    const thirdWrite = turns.map((turn) => (turn.t === 4 ? { ...turn, action: 'write' as const, scriptId: 's3' } : turn));
    expect(() => scriptSessionMetrics({ classes, rules, turns: thirdWrite })).toThrow(/turn 4/);
    const wrongClass = turns.map((turn) => (turn.t === 2 ? { ...turn, classId: 0 } : turn));
    expect(() => scriptSessionMetrics({ classes, rules, turns: wrongClass })).toThrow(/turn 2/);
    const refusedButCredited = turns.map((turn) => (turn.t === 4 ? { ...turn, credited: true } : turn));
    expect(() => scriptSessionMetrics({ classes, rules, turns: refusedButCredited })).toThrow(/credited/);
  });
});

import { describe, expect, it } from 'vitest';
import { loopMetrics } from '../../../core/scripts/loop-metrics.js';

describe('R3 metrics from a loop record', () => {
  it('count distinct classes built, replay the builds through the stream and keep the diagnostics', () => {
    // classes 0 1 0 2 0 1 3, B = 2; the session stopped at problem 3 after its second write.
    const { metrics, script } = loopMetrics({
      classes: [0, 1, 0, 2, 0, 1, 3],
      budget: 2,
      shown: 3,
      calls: 7,
      writes: [
        { t: 2, name: 'b' },
        { t: 3, name: 'a' },
      ],
      runs: [
        { t: 2, name: 'b', returned: true, correct: true },
        { t: 3, name: 'a', returned: false, correct: false },
      ],
      submissions: [
        { t: 1, correct: true, byHand: true },
        { t: 2, correct: true, byHand: false },
      ],
      writesRefused: 1,
      crossClassRunsRefused: 2,
      runAttempts: 4,
      malformedCalls: 1,
      unknownCalls: 2,
      forcedAdvances: 1,
    });
    // Eligible first sights: problems 1 and 2 (3 is a second occurrence); the class 2 and 3 first sights come after the budget closed.
    expect(metrics).toMatchObject({ commitments: 2, firstSightCommitments: 1, firstOccurrenceTurns: 2, utility: 2, totalLateness: 1 });
    expect(script).toMatchObject({
      builds: 2,
      firstSightBuilds: 1,
      distinctClassesBuilt: 2,
      modelCalls: 7,
      callsPerProblem: 7 / 3,
      scriptRuns: 2,
      scriptSuccessRate: 0.5,
      buildsCorrect: 1,
      reuseRuns: 0,
      answeredCorrectly: 2,
      rawAnswers: 1,
      rawAccuracy: 1,
      writesRefused: 1,
      crossClassRunsRefused: 2,
      runAttempts: 4,
      malformedCalls: 1,
      unknownCalls: 2,
      forcedAdvances: 1,
      firstSightHazardAsShown: 1 / 2,
    });
  });

  it('replays to the end of the stream: first occurrences after a stop are eligible passes, unlike the hazard as shown', () => {
    const { metrics, script } = loopMetrics({
      classes: [0, 1, 2],
      budget: 3,
      shown: 1,
      calls: 1,
      writes: [{ t: 1, name: 'a' }],
      runs: [],
      submissions: [],
      writesRefused: 0,
      crossClassRunsRefused: 0,
      runAttempts: 0,
      malformedCalls: 0,
      unknownCalls: 0,
      forcedAdvances: 0,
    });
    expect(metrics.firstSightHazard).toBe(1 / 3);
    expect(script.firstSightHazardAsShown).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { buildReplay } from '../../../core/scripts/build-replay.js';

/*
 * Classes A B A C B A D C (A=0 … D=3), B = 2. Scripts authored on t2 (B, first
 * sight), t6 (A, third occurrence) and again on t5 (a second script for B).
 */
const classes = [0, 1, 0, 2, 1, 0, 3, 2];

describe('R3 builds replayed as commitments (the paper’s count)', () => {
  it('commits each class at its first authoring event only, and replays the rest of the stream as passes', () => {
    const record = buildReplay(classes, 2, [2, 5, 6]);
    expect(record.decisions.map((d) => [d.t, d.action])).toEqual([
      [1, 'pass'],
      [2, 'commit'],
      [3, 'pass'],
      [4, 'pass'],
      [6, 'commit'],
    ]);
    const metrics = sessionMetrics(record);
    // Distinct classes with an authoring event; first-sight among them; lateness in occurrences.
    expect(metrics).toMatchObject({ commitments: 2, firstSightCommitments: 1, totalLateness: 2, firstOccurrenceTurns: 3 });
  });

  it('counts the first occurrences after the session stopped as eligible passes', () => {
    // A session that stopped after its single build on t1 still has C's and D's first occurrences (and B's) eligible.
    const metrics = sessionMetrics(buildReplay(classes, 3, [1]));
    expect(metrics.firstOccurrenceTurns).toBe(4);
    expect(metrics.firstSightHazard).toBe(1 / 4);
    expect(sessionMetrics(buildReplay(classes, 3, [])).commitments).toBe(0);
  });

  it('refuses builds on more classes than the budget allows, and builds outside the stream', () => {
    expect(() => buildReplay(classes, 1, [1, 2])).toThrow(/more classes built than the budget/);
    expect(() => buildReplay(classes, 2, [9])).toThrow(/outside the 8-item stream/);
  });
});

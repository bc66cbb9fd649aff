import { describe, expect, it } from 'vitest';
import { poolPerSeed } from '../../../analysis/stats/pool-per-seed.js';
import { metrics } from './session-fixtures.js';

describe('pooling arms per seed', () => {
  it('sums each seed’s sessions into one cluster, so ratios re-pool over the arms', () => {
    const pooled = poolPerSeed([
      { seed: 2001, metrics: metrics({ commitments: 3, firstSightCommitments: 3, totalLateness: 0 }) },
      {
        seed: 2000,
        metrics: metrics({ commitments: 2, firstSightCommitments: 1, totalLateness: 1, keepsByOccurrence: [{ eligible: 4, keeps: 1 }] }),
      },
      {
        seed: 2000,
        metrics: metrics({
          commitments: 3,
          firstSightCommitments: 0,
          totalLateness: 4,
          keepsByOccurrence: [
            { eligible: 3, keeps: 0 },
            { eligible: 2, keeps: 2 },
          ],
        }),
      },
    ]);
    expect(pooled.map((s) => s.seed)).toEqual([2000, 2001]);
    // Seed 2000: 1 of 5 commitments at first sight, lateness 5 over 5 commitments, budget 3 + 3.
    expect(pooled[0]?.metrics).toMatchObject({
      commitments: 5,
      firstSightCommitments: 1,
      firstSightRate: 0.2,
      meanLateness: 1,
      budget: 6,
      keepsByOccurrence: [
        { eligible: 7, keeps: 1 },
        { eligible: 2, keeps: 2 },
      ],
    });
    expect(pooled[1]?.metrics.firstSightRate).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { economicInteractions } from '../../../analysis/stats/economic-interaction.js';
import type { SeedSession } from '../../../analysis/stats/seed-session.js';
import { session } from './session-fixtures.js';

/** A session at (B, K) whose first-sight hazard is firstSight / eligible first occurrences. */
const cell = (seed: number, budget: number, charge: number, firstSightCommitments: number, firstOccurrenceTurns: number): SeedSession =>
  session(seed, { budget, charge, firstSightCommitments, commitments: firstSightCommitments, firstOccurrenceTurns });

/*
 * B = 1, seeds 1 and 2, charges 0, 10 and 24 (K = 10 lies between and is not used):
 *   R0 seed 1: 1/1 at K 0, 0/5 at K 24 → reduction 1.   R2 seed 1: 1/1 → 1/1 → 0.   I = 1.
 *   R0 seed 2: 0/4 at K 0, 0/6 at K 24 → 0.             R2 seed 2: 1/1 → 1/1 → 0.   I = 0.
 * Mean interaction 1/2. (The pooled hazards would give R0 1/5 → 0/11, R2 2/2 → 2/2: 0.2, not 0.5.)
 * B = 3, seeds 1 and 2:
 *   R0 seed 1: 1/4 → 0/6 (0.25); R2 seed 1: 3/3 → 2/3 (1/3): I = 0.25 - 1/3 = -1/12.
 *   R0 seed 2: no eligible first occurrence at K 24 (hazard undefined): omitted.
 */
const surface = {
  r0: [
    cell(1, 1, 0, 1, 1),
    cell(1, 1, 10, 0, 3),
    cell(1, 1, 24, 0, 5),
    cell(2, 1, 0, 0, 4),
    cell(2, 1, 24, 0, 6),
    cell(1, 3, 0, 1, 4),
    cell(1, 3, 24, 0, 6),
    cell(2, 3, 0, 2, 5),
    cell(2, 3, 24, 0, 0),
  ],
  r2: [
    cell(1, 1, 0, 1, 1),
    cell(1, 1, 24, 1, 1),
    cell(2, 1, 0, 1, 1),
    cell(2, 1, 10, 1, 1),
    cell(2, 1, 24, 1, 1),
    cell(1, 3, 0, 3, 3),
    cell(1, 3, 24, 2, 3),
    cell(2, 3, 0, 3, 3),
    cell(2, 3, 24, 3, 3),
  ],
};

describe('economic endpoint interaction (C.4, E)', () => {
  const [b1, b3] = economicInteractions(surface);

  it('differences the per-seed hazard reductions between the lowest and highest charge', () => {
    expect(b1).toMatchObject({ budget: 1, lowCharge: 0, highCharge: 24, estimate: 0.5, seeds: 2, omittedSeeds: [] });
    expect(b1?.bySeed).toEqual([
      { seed: 1, r0Reduction: 1, r2Reduction: 0, interaction: 1 },
      { seed: 2, r0Reduction: 0, r2Reduction: 0, interaction: 0 },
    ]);
    // Resample means are 0, 1/2 or 1, each end with probability 1/4: the interval spans [0, 1].
    expect(b1?.interval).toEqual([0, 1]);
  });

  it('omits a seed whose hazard is undefined in any of its four sessions', () => {
    expect(b3).toMatchObject({ budget: 3, seeds: 1, omittedSeeds: [2] });
    expect(b3?.estimate).toBeCloseTo(-1 / 12, 12);
    expect(b3?.bySeed[1]).toEqual({ seed: 2, r0Reduction: null, r2Reduction: 0, interaction: null });
  });

  it('needs the same seeds in all four cells and two charges', () => {
    expect(() => economicInteractions({ r0: surface.r0, r2: surface.r2.filter((s) => s.seed !== 1 || s.metrics.charge !== 24) })).toThrow(
      /differ in seeds/,
    );
    expect(() => economicInteractions({ r0: [cell(1, 1, 0, 1, 1)], r2: [cell(1, 1, 0, 1, 1)] })).toThrow(/single charge/);
  });
});

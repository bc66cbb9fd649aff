import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  marginalRatioInterval,
  pairedMeanDifference,
  pairedRatioDifference,
  type SeedRatioPair,
} from '../../../analysis/stats/bootstrap.js';
import { defaultRng } from '../../../analysis/stats/numpy-random.js';
import { percentileOfSorted } from '../../../analysis/stats/percentile.js';
import { fixtureCase, fixtureEntries } from './numpy-fixture.js';

/*
 * The resamples are the rows of numpy's default_rng(0).integers(0, n, size=(B, n))
 * (numpy-random.test.ts checks the generator against numpy's own output). The
 * hand-worked cases below rest on these rows of it, seeds ascending as indices:
 *   n = 2, B = 4:  [1 1] [1 0] [0 0] [0 0]
 *   n = 4, B = 4:  [3 2 2 1] [1 0 0 0] [0 3 2 3] [2 2 3 2]
 */
const rows = (n: number, resamples: number) => {
  const flat = Array.from(defaultRng(0).integers(0, n, resamples * n));
  return Array.from({ length: resamples }, (_, r) => flat.slice(r * n, (r + 1) * n));
};

describe('the resamples the hand-worked cases rest on', () => {
  it("are numpy's rows, and ours", () => {
    const numpy = (expression: string, n: number) => {
      const flat = fixtureEntries(fixtureCase(expression));
      return Array.from({ length: flat.length / n }, (_, r) => flat.slice(r * n, (r + 1) * n));
    };
    const handWorked2 = [
      [1, 1],
      [1, 0],
      [0, 0],
      [0, 0],
    ];
    const handWorked4 = [
      [3, 2, 2, 1],
      [1, 0, 0, 0],
      [0, 3, 2, 3],
      [2, 2, 3, 2],
    ];
    expect(numpy('np.random.default_rng(0).integers(0, 2, size=(4, 2))', 2)).toEqual(handWorked2);
    expect(numpy('np.random.default_rng(0).integers(0, 4, size=(4, 4))', 4)).toEqual(handWorked4);
    expect(rows(2, 4)).toEqual(handWorked2);
    expect(rows(4, 4)).toEqual(handWorked4);
  });
});

describe('percentileOfSorted (type 7)', () => {
  it('interpolates linearly between order statistics', () => {
    expect(percentileOfSorted([1, 2, 3, 4], 0.5)).toBe(2.5); // h = 1.5
    expect(percentileOfSorted([1, 2, 3, 4], 0.025)).toBeCloseTo(1.075, 12); // h = 0.075
    expect(percentileOfSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(percentileOfSorted([7], 0.975)).toBe(7);
    expect(() => percentileOfSorted([], 0.5)).toThrow(/no values/);
  });
});

describe('hand-worked bootstraps (B = 4)', () => {
  it('pairedMeanDifference: the mean of b - a per seed', () => {
    // Seed differences: 2000 → 1 - 0 = 1, 2001 → 0.5 - 0.5 = 0; estimate 0.5.
    // Resample means: [2001 2001] 0, [2001 2000] 0.5, [2000 2000] 1, [2000 2000] 1.
    // Sorted 0, 0.5, 1, 1: 2.5th at h = 0.075 → 0.0375; 97.5th at h = 2.925 → 1.
    const result = pairedMeanDifference(
      [
        { seed: 2001, a: 0.5, b: 0.5 },
        { seed: 2000, a: 0, b: 1 },
      ],
      { resamples: 4 },
    );
    expect(result.estimate).toBe(0.5);
    expect(result.interval?.[0]).toBeCloseTo(0.0375, 12);
    expect(result.interval?.[1]).toBe(1);
    expect(result).toMatchObject({ seeds: 2, omittedSeeds: [], resamples: 4, undefinedResamples: 0 });
  });

  it('pairedRatioDifference: re-pooled ratios differenced on the same rows, a zero-commit seed kept', () => {
    // s0 = 2000: a 1/2, b 2/2;  s1 = 2001: a 0/0, b 0/0 (zero-commit);  s2 = 2002: a 0/1, b 1/3;  s3 = 2003: a 1/1, b 1/2.
    // Observed: b 4/7 - a 2/4 = 1/14.
    // [s3 s2 s2 s1]: b 3/8 - a 1/3 = 1/24.     [s1 s0 s0 s0]: b 6/6 - a 3/6 = 1/2.
    // [s0 s3 s2 s3]: b 5/9 - a 3/5 = -2/45.    [s2 s2 s3 s2]: b 4/11 - a 1/4 = 5/44.
    // Sorted -2/45, 1/24, 5/44, 1/2: lower at h = 0.075, upper at h = 2.925.
    const seeds: SeedRatioPair[] = [
      { seed: 2003, aNum: 1, aDen: 1, bNum: 1, bDen: 2 },
      { seed: 2000, aNum: 1, aDen: 2, bNum: 2, bDen: 2 },
      { seed: 2001, aNum: 0, aDen: 0, bNum: 0, bDen: 0 },
      { seed: 2002, aNum: 0, aDen: 1, bNum: 1, bDen: 3 },
    ];
    const result = pairedRatioDifference(seeds, { resamples: 4 });
    expect(result.estimate).toBeCloseTo(1 / 14, 12);
    expect(result.interval?.[0]).toBeCloseTo(-2 / 45 + 0.075 * (1 / 24 + 2 / 45), 12);
    expect(result.interval?.[1]).toBeCloseTo(5 / 44 + 0.925 * (1 / 2 - 5 / 44), 12);
    expect(result).toMatchObject({ seeds: 4, undefinedResamples: 0 });
  });

  it('marginalRatioInterval: a resample with Σ den = 0 is undefined and dropped', () => {
    // 2000: 1/1, 2001: 0/0. [2001 2001] has Σ den 0 (undefined); the other three give 1/1.
    const result = marginalRatioInterval(
      [
        { seed: 2000, num: 1, den: 1 },
        { seed: 2001, num: 0, den: 0 },
      ],
      { resamples: 4 },
    );
    expect(result).toEqual({ estimate: 1, interval: [1, 1], seeds: 2, omittedSeeds: [], resamples: 4, undefinedResamples: 1 });
  });
});

describe('estimator edge cases', () => {
  it('omits a seed with a null side from the seed-mean estimand only', () => {
    const result = pairedMeanDifference([
      { seed: 1, a: 0.2, b: 0.9 },
      { seed: 2, a: null, b: 1 },
      { seed: 3, a: 0.4, b: null },
    ]);
    expect(result).toMatchObject({ seeds: 1, omittedSeeds: [2, 3], resamples: 10_000, undefinedResamples: 0 });
    expect(result.estimate).toBeCloseTo(0.7, 12);
    expect(result.interval?.[0]).toBeCloseTo(0.7, 12);
    expect(result.interval?.[1]).toBeCloseTo(0.7, 12);
  });

  it('is undefined throughout when no seed remains or every denominator is 0', () => {
    expect(pairedMeanDifference([{ seed: 1, a: null, b: 1 }], { resamples: 10 })).toEqual({
      estimate: null,
      interval: null,
      seeds: 0,
      omittedSeeds: [1],
      resamples: 10,
      undefinedResamples: 10,
    });
    expect(marginalRatioInterval([{ seed: 1, num: 0, den: 0 }], { resamples: 10 })).toMatchObject({
      estimate: null,
      interval: null,
      undefinedResamples: 10,
    });
  });

  it('rejects duplicate seeds, non-finite values and a bad number of resamples', () => {
    expect(() =>
      pairedMeanDifference([
        { seed: 1, a: 0, b: 1 },
        { seed: 1, a: 0, b: 1 },
      ]),
    ).toThrow(/seed 1 appears twice/);
    expect(() => marginalRatioInterval([{ seed: 1, num: NaN, den: 1 }])).toThrow(/non-finite/);
    expect(() => marginalRatioInterval([{ seed: 1, num: 1, den: 1 }], { resamples: 0 })).toThrow(/positive integer/);
  });
});

/*
 * A plain reference: resample r is row r of numpy's
 * default_rng(seed).integers(0, n, size=(B, n)); compute the statistic on the
 * resampled rows, drop undefined ones, sort and take type-7 percentiles.
 */
function reference<T>(rows: readonly T[], statistic: (sample: T[]) => number, resamples: number, seed: number) {
  const n = rows.length;
  const indices = n > 0 ? defaultRng(seed).integers(0, n, resamples * n) : new Float64Array(0);
  const stats: number[] = [];
  for (let r = 0; r < resamples && n > 0; r++) {
    const sample = Array.from(indices.subarray(r * n, (r + 1) * n), (i) => rows[i] as T);
    const value = statistic(sample);
    if (!Number.isNaN(value)) stats.push(value);
  }
  stats.sort((x, y) => x - y);
  const quantile = (p: number) => {
    const h = p * (stats.length - 1);
    const low = Math.floor(h);
    const x = stats[low] as number;
    return low + 1 < stats.length ? x + (h - low) * ((stats[low + 1] as number) - x) : x;
  };
  return { interval: stats.length > 0 ? [quantile(0.025), quantile(0.975)] : null, undefinedResamples: resamples - stats.length };
}
const total = <T>(sample: T[], pick: (row: T) => number) => sample.reduce((sum, row) => sum + pick(row), 0);
const pooled = (num: number, den: number) => (den === 0 ? NaN : num / den);

const counts = fc.integer({ min: 0, max: 4 });
const ratioRows = fc.uniqueArray(
  fc.record({ seed: fc.integer({ min: 0, max: 5000 }), aNum: counts, aDen: counts, bNum: counts, bDen: counts }),
  { selector: (row) => row.seed, minLength: 1, maxLength: 12 },
);
const valueRows = fc.uniqueArray(
  fc.record({
    seed: fc.integer({ min: 0, max: 5000 }),
    a: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 5 }),
    b: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 5 }),
  }),
  { selector: (row) => row.seed, minLength: 1, maxLength: 12 },
);
const bySeed = <T extends { seed: number }>(rows: readonly T[]) => [...rows].sort((x, y) => x.seed - y.seed);

describe('the bootstrap against a plain reference', () => {
  const resamples = 300;
  const bootSeed = fc.integer({ min: 0, max: 1000 });

  it('pairedMeanDifference', () => {
    fc.assert(
      fc.property(valueRows, bootSeed, (rows, seed) => {
        const kept = bySeed(rows).flatMap((r) => (r.a === null || r.b === null ? [] : [r.b - r.a]));
        const expected = reference(kept, (s) => total(s, (d) => d) / s.length, resamples, seed);
        const actual = pairedMeanDifference(rows, { resamples, seed });
        expect(actual.interval).toEqual(kept.length > 0 ? expected.interval : null);
      }),
      { numRuns: 60 },
    );
  });

  it('pairedRatioDifference', () => {
    fc.assert(
      fc.property(ratioRows, bootSeed, (rows, seed) => {
        const statistic = (s: SeedRatioPair[]) =>
          pooled(
            total(s, (r) => r.bNum),
            total(s, (r) => r.bDen),
          ) -
          pooled(
            total(s, (r) => r.aNum),
            total(s, (r) => r.aDen),
          );
        const expected = reference(bySeed(rows), statistic, resamples, seed);
        const actual = pairedRatioDifference(rows, { resamples, seed });
        expect({ interval: actual.interval, undefinedResamples: actual.undefinedResamples }).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('marginalRatioInterval', () => {
    fc.assert(
      fc.property(ratioRows, bootSeed, (rows, seed) => {
        const arm = rows.map((r) => ({ seed: r.seed, num: r.aNum, den: r.aDen }));
        const expected = reference(
          bySeed(arm),
          (s) =>
            pooled(
              total(s, (r) => r.num),
              total(s, (r) => r.den),
            ),
          resamples,
          seed,
        );
        const actual = marginalRatioInterval(arm, { resamples, seed });
        expect({ interval: actual.interval, undefinedResamples: actual.undefinedResamples }).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});

describe('shared resamples', () => {
  const values = Array.from({ length: 24 }, (_, i) => ((i * 7) % 11) / 10);

  it('a paired contrast draws both arms from the same rows', () => {
    // With b identical to a, each resample's difference is exactly 0 only if both arms use the same row.
    const seeds = values.map((v, i) => ({ seed: 100 + i, aNum: v * 10, aDen: 3 + (i % 4), bNum: v * 10, bDen: 3 + (i % 4) }));
    expect(pairedRatioDifference(seeds)).toMatchObject({ estimate: 0, interval: [0, 0], undefinedResamples: 0 });
    const unequal = seeds.map((s, i) => ({ ...s, bNum: s.bNum + (i % 3) }));
    expect(pairedRatioDifference(unequal).interval?.[0]).toBeGreaterThan(0);
  });

  it('every estimand over the same n seeds resamples the same rows', () => {
    // The mean of seed differences equals a re-pooled ratio with every denominator 1.
    const pairs = values.map((v, i) => ({ seed: 100 + i, a: 0, b: v }));
    const ratios = values.map((v, i) => ({ seed: 100 + i, num: v, den: 1 }));
    expect(pairedMeanDifference(pairs).interval).toEqual(marginalRatioInterval(ratios).interval);
  });

  it('pairedMeanDifference draws over the kept seeds only', () => {
    const kept = values.map((v, i) => ({ seed: 100 + i, a: 0, b: v }));
    const withNulls = [...kept, { seed: 50, a: null, b: 1 }, { seed: 500, a: 0.3, b: null }];
    const result = pairedMeanDifference(withNulls);
    expect(result).toEqual({ ...pairedMeanDifference(kept), omittedSeeds: [50, 500] });
    expect(result.seeds).toBe(24);
  });
});

describe('determinism', () => {
  // 24 seeds with varied counts, so resample statistics rarely tie.
  const seeds: SeedRatioPair[] = Array.from({ length: 24 }, (_, i) => ({
    seed: 2000 + i,
    aNum: i % 3,
    aDen: 3 + (i % 4),
    bNum: 3 - (i % 5 === 0 ? 1 : 0),
    bDen: 3 + (i % 7),
  }));

  it('gives identical output for the same input, in any order', () => {
    const first = pairedRatioDifference(seeds);
    expect(pairedRatioDifference(seeds)).toEqual(first);
    expect(pairedRatioDifference([...seeds].reverse())).toEqual(first);
    expect(first.resamples).toBe(10_000);
  });

  it('changes the interval, not the estimate, with the bootstrap seed', () => {
    const seed0 = pairedRatioDifference(seeds);
    const seed1 = pairedRatioDifference(seeds, { seed: 1 });
    expect(seed1.estimate).toBe(seed0.estimate);
    expect(seed1.interval).not.toEqual(seed0.interval);
  });
});

import { defaultRng } from './numpy-random.js';
import { percentileOfSorted } from './percentile.js';

/*
 * The paired seed bootstrap of Appendix C, resampled exactly as the paper's
 * authors did with numpy. Seeds are the resampling unit (clusters): each
 * estimator puts its n seeds in ascending seed order (indices 0..n-1), and the
 * resamples are the rows of numpy's
 * `default_rng(seed).integers(0, n, size=(B, n))` (seed 0, B = 10,000 by
 * default; see numpy-random.ts): row r holds resample r's n seed indices. The
 * matrix depends only on (n, B, seed), so every estimand over n seeds, and both
 * arms of a paired contrast, use the same rows. The 95% interval is the 2.5th
 * and 97.5th percentiles (type 7, numpy's linear default, see percentile.ts) of
 * the resample statistics where the statistic is defined; resamples where it is
 * undefined (a zero pooled denominator) are dropped first.
 */

export interface BootstrapOptions {
  /** Number of resamples B (paper: 10,000). */
  readonly resamples?: number;
  /** Seed of numpy's `default_rng` that draws the resamples (paper: 0); a non-negative integer. */
  readonly seed?: number;
}

export interface BootstrapEstimate {
  /** The statistic on the observed seeds; null where it is undefined. */
  readonly estimate: number | null;
  /** 95% percentile interval; null when the statistic is undefined in every resample. */
  readonly interval: readonly [number, number] | null;
  /** Seeds resampled. */
  readonly seeds: number;
  /** Seeds left out of this estimand (a null side of a pair). */
  readonly omittedSeeds: readonly number[];
  readonly resamples: number;
  /**
   * Resamples where the statistic is undefined (a zero re-pooled denominator).
   * They are dropped: the interval is taken over the other resamples.
   */
  readonly undefinedResamples: number;
}

const DEFAULT_RESAMPLES = 10_000;
const DEFAULT_BOOTSTRAP_SEED = 0;

export interface SeedPair {
  readonly seed: number;
  readonly a: number | null;
  readonly b: number | null;
}

/**
 * Paper C.2: the mean over seeds of b - a, the per-seed difference. A seed with
 * either side null (e.g. no commitments for first-sight among commitments) is
 * omitted from this estimand before resampling, so the statistic is always defined.
 */
export function pairedMeanDifference(pairs: readonly SeedPair[], options: BootstrapOptions = {}): BootstrapEstimate {
  const kept: { seed: number; d: number }[] = [];
  const omitted: number[] = [];
  for (const { seed, a, b } of bySeed(pairs)) {
    if (a === null || b === null) omitted.push(seed);
    else kept.push({ seed, d: finite(b, seed) - finite(a, seed) });
  }
  const n = kept.length;
  return seedBootstrap([column(kept, (s) => s.d)], (sums) => (n > 0 ? (sums[0] as number) / n : NaN), options, omitted);
}

export interface SeedRatioPair {
  readonly seed: number;
  readonly aNum: number;
  readonly aDen: number;
  readonly bNum: number;
  readonly bDen: number;
}

/**
 * Paper C.3: Σ bNum / Σ bDen - Σ aNum / Σ aDen over the resampled seeds (each
 * arm re-pooled within the resample). Every seed is kept: a zero-commit seed
 * adds nothing to either sum. Undefined where either arm's Σ den is 0.
 */
export function pairedRatioDifference(seeds: readonly SeedRatioPair[], options: BootstrapOptions = {}): BootstrapEstimate {
  const sorted = bySeed(seeds);
  const pick = (key: keyof SeedRatioPair) => column(sorted, (s) => finite(s[key], s.seed));
  return seedBootstrap(
    [pick('aNum'), pick('aDen'), pick('bNum'), pick('bDen')],
    (sums) => ratio(sums[2] as number, sums[3] as number) - ratio(sums[0] as number, sums[1] as number),
    options,
    [],
  );
}

export interface SeedRatio {
  readonly seed: number;
  readonly num: number;
  readonly den: number;
}

/** One arm's re-pooled ratio Σ num / Σ den with its marginal seed-bootstrap interval. */
export function marginalRatioInterval(seeds: readonly SeedRatio[], options: BootstrapOptions = {}): BootstrapEstimate {
  const sorted = bySeed(seeds);
  const pick = (key: 'num' | 'den') => column(sorted, (s) => finite(s[key], s.seed));
  return seedBootstrap([pick('num'), pick('den')], (sums) => ratio(sums[0] as number, sums[1] as number), options, []);
}

const ratio = (num: number, den: number) => (den === 0 ? NaN : num / den);

function finite(value: number, seed: number): number {
  if (!Number.isFinite(value)) throw new Error(`bootstrap: seed ${seed} has a non-finite value ${value}`);
  return value;
}

function bySeed<T extends { readonly seed: number }>(rows: readonly T[]): T[] {
  const sorted = [...rows].sort((x, y) => x.seed - y.seed);
  sorted.forEach((row, i) => {
    if (i > 0 && sorted[i - 1]?.seed === row.seed) throw new Error(`bootstrap: seed ${row.seed} appears twice`);
  });
  return sorted;
}

function column<T>(rows: readonly T[], pick: (row: T) => number): Float64Array {
  return Float64Array.from(rows, pick);
}

/** Index matrices by (n, B, seed), kept for the next bootstrap over as many seeds. */
const matrices = new Map<string, Int32Array>();
const MAX_CACHED_MATRICES = 32;

/**
 * numpy's `default_rng(seed).integers(0, n, size=(resamples, n))`, row-major:
 * entry r·n + j is resample r's j-th seed index. Computed once per (n, resamples, seed).
 */
function seedIndexMatrix(n: number, resamples: number, seed: number): Int32Array {
  const key = `${n}:${resamples}:${seed}`;
  let matrix = matrices.get(key);
  if (matrix === undefined) {
    matrix = Int32Array.from(defaultRng(seed).integers(0, n, resamples * n));
    if (matrices.size >= MAX_CACHED_MATRICES) matrices.delete(matrices.keys().next().value as string);
    matrices.set(key, matrix);
  }
  return matrix;
}

/**
 * Resamples the seeds (rows of `columns`) and evaluates `statistic` on each
 * resample's column sums — every estimator here is a function of those sums.
 * The statistic returns NaN where undefined. Sums accumulate in draw order.
 */
function seedBootstrap(
  columns: readonly Float64Array[],
  statistic: (sums: Float64Array) => number,
  options: BootstrapOptions,
  omittedSeeds: readonly number[],
): BootstrapEstimate {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`bootstrap: resamples must be a positive integer, not ${resamples}`);
  const n = columns[0]?.length ?? 0;
  const k = columns.length;
  const sums = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    const values = columns[c] as Float64Array;
    for (let i = 0; i < n; i++) sums[c] = (sums[c] as number) + (values[i] as number);
  }
  const point = statistic(sums);
  const statistics = new Float64Array(resamples);
  let defined = 0;
  if (n > 0) {
    const matrix = seedIndexMatrix(n, resamples, options.seed ?? DEFAULT_BOOTSTRAP_SEED);
    for (let r = 0, at = 0; r < resamples; r++) {
      sums.fill(0);
      for (let j = 0; j < n; j++, at++) {
        const i = matrix[at] as number;
        for (let c = 0; c < k; c++) sums[c] = (sums[c] as number) + ((columns[c] as Float64Array)[i] as number);
      }
      const value = statistic(sums);
      if (!Number.isNaN(value)) statistics[defined++] = value;
    }
  }
  const sorted = statistics.subarray(0, defined).sort();
  return {
    estimate: Number.isNaN(point) ? null : point,
    interval: defined > 0 ? [percentileOfSorted(sorted, 0.025), percentileOfSorted(sorted, 0.975)] : null,
    seeds: n,
    omittedSeeds,
    resamples,
    undefinedResamples: resamples - defined,
  };
}

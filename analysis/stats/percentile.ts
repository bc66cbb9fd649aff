/**
 * The p-quantile of ascending values by linear interpolation between order
 * statistics (Hyndman–Fan type 7, numpy's default): with m values x(0) ≤ … ≤
 * x(m-1), h = p·(m-1) and Q = x(⌊h⌋) + (h - ⌊h⌋)·(x(⌊h⌋+1) - x(⌊h⌋)).
 * For m = 10,000 the 2.5th percentile sits at h = 249.975, between x(249) and x(250).
 */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const m = sorted.length;
  if (m === 0) throw new Error('percentile of no values');
  if (!(p >= 0 && p <= 1)) throw new Error(`percentile: p = ${p} is outside [0, 1]`);
  const h = p * (m - 1);
  const low = Math.floor(h);
  const below = sorted[low] as number;
  if (low === m - 1) return below;
  return below + (h - low) * ((sorted[low + 1] as number) - below);
}

/** The p-quantile (as percentileOfSorted) of values in any order, NaNs left out; NaN when none is left. */
export function quantileOf(values: readonly number[], p: number): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : percentileOfSorted(sorted, p);
}

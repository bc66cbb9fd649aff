/**
 * A pooled rate or score with its 95% seed-bootstrap interval, as fractions
 * (0.25 is 25%). The shape of analysis/stats' BootstrapEstimate once a caller has
 * settled its nulls: a figure only plots defined estimates.
 */
export interface Estimate {
  readonly value: number;
  readonly interval: readonly [low: number, high: number];
}

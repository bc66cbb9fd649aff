import type { BootstrapEstimate } from '../stats/bootstrap.js';
import type { Interval } from './table.js';

export const intervalOf = (estimate: BootstrapEstimate): Interval => ({
  estimate: estimate.estimate,
  low: estimate.interval?.[0] ?? null,
  high: estimate.interval?.[1] ?? null,
});

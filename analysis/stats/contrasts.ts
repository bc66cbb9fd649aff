import {
  marginalRatioInterval,
  pairedMeanDifference,
  pairedRatioDifference,
  type BootstrapEstimate,
  type BootstrapOptions,
} from './bootstrap.js';
import { pairedSeedRatios, pairedSeedValues, seedRatios, type EstimandName } from './ratio-estimands.js';
import type { SeedSession } from './seed-session.js';

/** One arm's pooled estimand with its per-arm marginal interval (Tables D.2, Figures 2–4). */
export function marginalEstimate(name: EstimandName, arm: readonly SeedSession[], options?: BootstrapOptions): BootstrapEstimate {
  return marginalRatioInterval(seedRatios(name, arm), options);
}

/** C.3: b's re-pooled ratio minus a's, seeds resampled as clusters (Tables D.1, F). */
export function repooledDifference(
  name: EstimandName,
  a: readonly SeedSession[],
  b: readonly SeedSession[],
  options?: BootstrapOptions,
): BootstrapEstimate {
  return pairedRatioDifference(pairedSeedRatios(name, a, b), options);
}

/** C.2: the mean over seeds of b's value minus a's; seeds where either is undefined are omitted. */
export function seedMeanDifference(
  name: EstimandName,
  a: readonly SeedSession[],
  b: readonly SeedSession[],
  options?: BootstrapOptions,
): BootstrapEstimate {
  return pairedMeanDifference(pairedSeedValues(name, a, b), options);
}

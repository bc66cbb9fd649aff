import { pairedMeanDifference, type BootstrapEstimate, type BootstrapOptions } from './bootstrap.js';
import { sortedBySeed, type SeedSession } from './seed-session.js';

/**
 * The economic endpoint interaction of Appendix C.4 / E, for each budget B:
 *
 *   per seed s:  I_s = {h_R0(K_lo) - h_R0(K_hi)} - {h_R2(K_lo) - h_R2(K_hi)}
 *
 * where h is that seed's own first-sight hazard (committed share of its eligible
 * first-occurrence turns) in the session at (frame, B, K), K_lo and K_hi are the
 * lowest and highest charges on the surface (0 and 24 in the paper). The
 * estimate is the mean of I_s over seeds, with the paired seed bootstrap of
 * that mean: positive means R0 sheds more first-sight commitment as the price
 * rises than R2 does. The hazard is per seed, not the pooled hazard of Table E:
 * "computed per seed … then resampled by seed"; the pooled hazards of Table E
 * give -1.6 points at B = 1, far from the reported +30.8, while per-seed hazards
 * (1/1 for a session that commits on turn 1 at B = 1) can reach it. A seed whose
 * hazard is undefined in any of the four sessions (no eligible first-occurrence
 * turn) is omitted, as in C.2.
 */
export interface EconomicSurface {
  /** R0 sessions, any budgets and charges, one per (seed, B, K). */
  readonly r0: readonly SeedSession[];
  /** R2 sessions on the same seeds, budgets and charges. */
  readonly r2: readonly SeedSession[];
}

export interface SeedInteraction {
  readonly seed: number;
  /** h_R0(K_lo) - h_R0(K_hi); null when either hazard is undefined. */
  readonly r0Reduction: number | null;
  readonly r2Reduction: number | null;
  readonly interaction: number | null;
}

export interface EconomicInteraction extends BootstrapEstimate {
  readonly budget: number;
  readonly lowCharge: number;
  readonly highCharge: number;
  readonly bySeed: readonly SeedInteraction[];
}

export function economicInteractions(surface: EconomicSurface, options?: BootstrapOptions): EconomicInteraction[] {
  const budgets = [...new Set([...surface.r0, ...surface.r2].map((s) => s.metrics.budget))].sort((x, y) => x - y);
  return budgets.map((budget) => {
    const atBudget = (arm: readonly SeedSession[]) => arm.filter((s) => s.metrics.budget === budget);
    const r0 = atBudget(surface.r0);
    const r2 = atBudget(surface.r2);
    const charges = [...r0, ...r2].map((s) => s.metrics.charge);
    const lowCharge = Math.min(...charges);
    const highCharge = Math.max(...charges);
    if (lowCharge === highCharge) throw new Error(`economic interaction: B = ${budget} has a single charge`);
    const cells = {
      r0Low: hazards(r0, lowCharge),
      r0High: hazards(r0, highCharge),
      r2Low: hazards(r2, lowCharge),
      r2High: hazards(r2, highCharge),
    };
    const seeds = [...cells.r0Low.keys()];
    if (Object.values(cells).some((cell) => cell.size !== seeds.length || seeds.some((seed) => !cell.has(seed)))) {
      throw new Error(`economic interaction: at B = ${budget} the R0 and R2 cells at K = ${lowCharge} and ${highCharge} differ in seeds`);
    }
    const reduction = (low: Map<number, number | null>, high: Map<number, number | null>, seed: number) => {
      const [l, h] = [low.get(seed), high.get(seed)];
      return l == null || h == null ? null : l - h;
    };
    const bySeed = seeds.map((seed): SeedInteraction => {
      const r0Reduction = reduction(cells.r0Low, cells.r0High, seed);
      const r2Reduction = reduction(cells.r2Low, cells.r2High, seed);
      const interaction = r0Reduction === null || r2Reduction === null ? null : r0Reduction - r2Reduction;
      return { seed, r0Reduction, r2Reduction, interaction };
    });
    // pairedMeanDifference averages b - a: here r0Reduction - r2Reduction.
    const estimate = pairedMeanDifference(
      bySeed.map(({ seed, r0Reduction, r2Reduction }) => ({ seed, a: r2Reduction, b: r0Reduction })),
      options,
    );
    return { ...estimate, budget, lowCharge, highCharge, bySeed };
  });
}

/** Per-seed first-sight hazard of one frame's sessions at one charge. */
function hazards(arm: readonly SeedSession[], charge: number): Map<number, number | null> {
  return new Map(sortedBySeed(arm.filter((s) => s.metrics.charge === charge)).map((s) => [s.seed, s.metrics.firstSightHazard]));
}

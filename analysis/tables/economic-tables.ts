import { armLabel, varyingFields, type Arm } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { marginalEstimate } from '../stats/contrasts.js';
import { economicInteractions } from '../stats/economic-interaction.js';
import { optimumOnArm } from '../stats/optimum-on-arm.js';
import { intervalOf } from './interval-cell.js';
import type { Table } from './table.js';

/**
 * Arms of the economic surface: economic cells (the charge rule stated, K = 0
 * included) of a model, rung and budget run at more than one charge K. A
 * model's dedicated K = 0 arm (the authors' `urn_*`, our runs without a
 * charge) is a ladder arm, never a surface cell, even at the same B.
 */
export function economicArms(arms: readonly Arm[]): Arm[] {
  // The surface is a single agent's: a split agent's economic R3 arm stays a cell of its own.
  const cells = arms.filter((arm) => arm.key.economic && arm.key.builder === null);
  const charges = new Map<string, Set<number>>();
  const id = (arm: Arm) =>
    JSON.stringify([arm.key.model, arm.key.rung, arm.key.reskin, arm.key.announceN, arm.key.magnitude, arm.key.budget]);
  for (const arm of cells) charges.set(id(arm), (charges.get(id(arm)) ?? new Set()).add(arm.key.charge));
  return cells.filter((arm) => (charges.get(id(arm))?.size ?? 0) > 1);
}

/** The standard error of a mean over seeds (sample standard deviation / √n); null under two seeds. */
function standardError(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
  return Math.sqrt(variance / n);
}

/** Appendix E: hazard, net utility, the exact hindsight net optimum and regret per (B, K). */
export function economicSurfaceTable(arms: readonly Arm[]): Table {
  const surface = economicArms(arms);
  const varies = varyingFields(surface.map((arm) => arm.key));
  for (const field of ['rung', 'budget', 'charge'] as const) varies.delete(field);
  return {
    id: 'economic-surface',
    title: 'Economic surface',
    caption:
      "The economic cells only: sessions told the charge rule (the authors' economic_surface_<model> cells; our runs with --charge or economic: true), never a model's dedicated K = 0 arm, which feeds its framing ladder. First-sight hazard (committed share of the eligible first-occurrence turns; an unresolved turn counts as a pass, only turns never reached are left out) with its per-arm interval (numpy's default_rng(0) seed bootstrap, 10,000 resamples), mean net utility (credited items minus K per commitment), the exact hindsight net optimum, mean regret with its standard error over seeds (sample SD / √n), and what the optimum does on the same streams: its commitments per seed, its first-sight hazard and its mean build lateness (it builds at first sight or never; between classes of equal size it takes the larger class id, as the paper authors' optimum does), per budget B and visible charge K.",
    columns: [
      { name: 'Arm', format: 'text' },
      { name: 'Rung', format: 'text' },
      { name: 'B', format: 'integer' },
      { name: 'K', format: 'fixed' },
      { name: 'Hazard', format: 'percent' },
      { name: 'Net', format: 'fixed' },
      { name: 'Optimum', format: 'fixed' },
      { name: 'Regret', format: 'fixed' },
      { name: 'Regret SE', format: 'fixed' },
      { name: 'Optimum commits/seed', format: 'fixed' },
      { name: 'Optimum hazard', format: 'percent' },
      { name: 'Optimum lateness', format: 'fixed' },
    ],
    rows: surface.map((arm) => {
      const summary = summarizeArm(arm.key.rung, arm.sessions);
      const optimum = optimumOnArm(arm);
      return [
        armLabel(arm.key, varies),
        arm.key.rung,
        arm.key.budget,
        arm.key.charge,
        intervalOf(marginalEstimate('firstSightHazard', arm.sessions)),
        summary.meanNet,
        summary.meanOptimum,
        summary.meanRegret,
        standardError(arm.sessions.map((s) => s.metrics.regret)),
        optimum.commitmentsPerSeed,
        optimum.firstSightHazard,
        optimum.meanLateness,
      ];
    }),
  };
}

/** The endpoint interaction per B (C.4): how much more R0 sheds first-sight commitment than R2 as K rises. */
export function economicInteractionTable(arms: readonly Arm[]): Table {
  const surface = economicArms(arms);
  const models = [...new Set(surface.map((arm) => arm.key.model))];
  const rows = models.flatMap((model) => {
    const of = (rung: string) => surface.filter((arm) => arm.key.model === model && arm.key.rung === rung).flatMap((arm) => arm.sessions);
    const r0 = of('R0');
    const r2 = of('R2');
    if (r0.length === 0 || r2.length === 0) return [];
    return economicInteractions({ r0, r2 }).map((interaction) => [
      model,
      interaction.budget,
      `${interaction.lowCharge} → ${interaction.highCharge}`,
      intervalOf(interaction),
      `${interaction.seeds}${interaction.omittedSeeds.length > 0 ? ` (${interaction.omittedSeeds.length} omitted)` : ''}`,
    ]);
  });
  return {
    id: 'economic-interaction',
    title: 'Economic endpoint interaction',
    caption:
      "Per seed: the fall in R0 first-sight hazard from the lowest to the highest charge minus the same fall at R2, in points; mean over seeds with the paired seed bootstrap (numpy's default_rng(0), 10,000 resamples). Unresolved turns count as passes in the hazards. Seeds with an undefined hazard in any of the four sessions are omitted.",
    columns: [
      { name: 'Model', format: 'text' },
      { name: 'B', format: 'integer' },
      { name: 'K', format: 'text' },
      { name: 'Interaction', format: 'points' },
      { name: 'Seeds', format: 'text' },
    ],
    rows,
  };
}

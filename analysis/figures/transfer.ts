import type { TopLevelSpec } from 'vega-lite';
import type { Estimate } from './estimate.js';
import { ladderSpec } from './ladder.js';

export interface TransferPanelRates {
  /** The panel's tick label; a line break splits it over two lines. */
  readonly label: string;
  /** Each arm's pooled first-sight commitment with its 95% interval; null where it is undefined (no commitment). */
  readonly a: Estimate | null;
  readonly b: Estimate | null;
  /** The paired B − A difference of re-pooled ratios with its 95% interval (seeds resampled as clusters). */
  readonly difference: Estimate | null;
}

export interface TransferInput {
  /** The reference arm A (e.g. the base model) and the arm B compared with it (e.g. a post-trained checkpoint). */
  readonly a: string;
  readonly b: string;
  /** In ladder order, from the abstract urn to R3. */
  readonly panels: readonly TransferPanelRates[];
}

/** B is significantly better than A where the paired B − A interval lies entirely below zero: less first-sight commitment, more reserve. */
export const significantlyBetter = (difference: Estimate | null): boolean => difference !== null && difference.interval[1] < 0;

/**
 * Figure 4 (fig:rl-transfer): A's and B's pooled first-sight commitment per
 * panel with 95% interval bars, the panels where B is significantly better
 * shaded. A ladder figure with two series; shading comes from the paired
 * interval, which the two marginal bars cannot show (the arms share seeds).
 */
export function transferSpec({ a, b, panels }: TransferInput): TopLevelSpec {
  const rates = (pick: (panel: TransferPanelRates) => Estimate | null) =>
    Object.fromEntries(panels.flatMap((panel) => (pick(panel) ? [[panel.label, pick(panel) as Estimate]] : [])));
  return ladderSpec({
    rungs: panels.map((panel) => panel.label),
    models: [
      { model: `A: ${a}`, rates: rates((panel) => panel.a) },
      { model: `B: ${b}`, rates: rates((panel) => panel.b) },
    ],
    shaded: panels.filter((panel) => significantlyBetter(panel.difference)).map((panel) => panel.label),
    titles: { x: null, legend: null },
  });
}

import type { TopLevelSpec } from 'vega-lite';
import type { Estimate } from './estimate.js';
import { CONFIG, PERCENT_AXIS, PERCENT_SCALE, PALETTE } from './theme.js';

/** One cell of the economic surface: a budget B and visible build charge K. */
export interface EconomicCell {
  readonly budget: number;
  readonly charge: number;
  /** Pooled first-sight hazard with its 95% interval, per frame (e.g. R0, R2). */
  readonly hazard: Readonly<Record<string, Estimate>>;
  /** The exact hindsight net optimum's first-sight hazard in this cell. */
  readonly optimum: number;
}

/** Legend name of the optimum's line. */
export const OPTIMUM_LABEL = 'opt* (hindsight)';

/**
 * Figure 5 (fig:economic): first-sight hazard against the charge K, one panel per
 * budget B. Each frame is a coloured line of points with 95% interval bars; the
 * optimum's hazard is a dashed black line.
 */
export function economicSpec(cells: readonly EconomicCell[]): TopLevelSpec {
  const frames = [...new Set(cells.flatMap((cell) => Object.keys(cell.hazard)))];
  const budgets = [...new Set(cells.map((cell) => cell.budget))].sort((a, b) => a - b);
  const charges = [...new Set(cells.map((cell) => cell.charge))].sort((a, b) => a - b);
  const values = cells.flatMap(({ budget, charge, hazard, optimum }) => [
    ...frames.flatMap((frame) => {
      const h = hazard[frame];
      return h === undefined ? [] : [{ budget, charge, series: frame, rate: h.value, low: h.interval[0], high: h.interval[1] }];
    }),
    { budget, charge, series: OPTIMUM_LABEL, rate: optimum },
  ]);
  const series = [...frames, OPTIMUM_LABEL];
  const color = {
    field: 'series',
    type: 'nominal' as const,
    title: null,
    scale: { domain: series, range: [...frames.map((_, i) => PALETTE[i % PALETTE.length] as string), '#111'] },
    legend: { symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300 },
  };
  const strokeDash = {
    field: 'series',
    type: 'nominal' as const,
    title: null,
    scale: { domain: series, range: [...frames.map(() => [1, 0]), [5, 3]] },
  };
  const isOptimum = `datum.series === '${OPTIMUM_LABEL}'`;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    data: { values },
    facet: {
      column: {
        field: 'budget',
        type: 'ordinal',
        title: null,
        sort: budgets,
        header: { labelExpr: "'B = ' + datum.value", labelFontWeight: 'bold' },
      },
    },
    spacing: 14,
    spec: {
      width: 170,
      height: 220,
      encoding: {
        x: {
          field: 'charge',
          type: 'quantitative',
          title: 'Build charge K',
          scale: { domain: [charges[0] ?? 0, charges[charges.length - 1] ?? 1], nice: false, padding: 12 },
          axis: { values: charges, grid: false, format: 'd' },
        },
        y: { field: 'rate', type: 'quantitative', scale: PERCENT_SCALE, axis: PERCENT_AXIS, title: 'First-sight hazard' },
        color,
      },
      layer: [
        { mark: { type: 'line', strokeWidth: 1.5 }, encoding: { strokeDash } },
        {
          transform: [{ filter: `!(${isOptimum})` }],
          mark: { type: 'rule', strokeWidth: 1.8 },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
        {
          transform: [{ filter: `!(${isOptimum})` }],
          mark: { type: 'point', shape: 'circle', filled: true, size: 50, opacity: 1, stroke: 'white', strokeWidth: 1 },
        },
      ],
    },
  };
}

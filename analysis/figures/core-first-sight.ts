import type { TopLevelSpec } from 'vega-lite';
import type { Estimate } from './estimate.js';
import { CONFIG, PERCENT_AXIS, PERCENT_SCALE, categoryScale } from './theme.js';

/** One seed's first-sight rates; null where the seed made no commitment at that rung. */
export interface SeedFirstSight {
  readonly seed: number;
  readonly r0: number | null;
  readonly r3: number | null;
  /** Script builds the seed realized at R3; 0 draws its R0 rate as an open circle. */
  readonly r3Builds: number;
}

export interface ModelFirstSight {
  readonly model: string;
  readonly seeds: readonly SeedFirstSight[];
  /** Pooled rates with their intervals. */
  readonly pooled: { readonly r0: Estimate; readonly r3: Estimate };
}

/**
 * Figure 2 (fig:core): a panel per model, R0 and R3 first-sight commitment. Thin
 * lines join each seed's two rates, small points mark them (open at R0 for a seed
 * with no R3 build), a large point with a 95% interval bar gives each pooled rate,
 * and a bold line joins the two pooled rates.
 */
export function coreFirstSightSpec(models: readonly ModelFirstSight[]): TopLevelSpec {
  const seedRows = models.flatMap(({ model, seeds }) => {
    const r0Offsets = sideBySide(seeds.map((s) => s.r0));
    const r3Offsets = sideBySide(seeds.map((s) => s.r3));
    return seeds.flatMap(({ seed, r0, r3, r3Builds }, i) => {
      const paired = r0 !== null && r3 !== null;
      return [
        ...(r0 === null ? [] : [{ kind: 'seed', model, seed, x: r0Offsets[i] as number, rate: r0, paired, open: r3Builds === 0 }]),
        ...(r3 === null ? [] : [{ kind: 'seed', model, seed, x: 1 + (r3Offsets[i] as number), rate: r3, paired, open: false }]),
      ];
    });
  });
  // Pooled rates stand just outside the seeds' columns, so the seeds never hide their bars.
  const pooledRows = models.flatMap(({ model, pooled }) =>
    [pooled.r0, pooled.r3].map(({ value, interval }, i) => ({
      kind: 'pooled',
      model,
      x: i === 0 ? -POOLED_OFFSET : 1 + POOLED_OFFSET,
      rate: value,
      low: interval[0],
      high: interval[1],
    })),
  );
  const names = models.map((m) => m.model);
  const x = {
    field: 'x',
    type: 'quantitative' as const,
    title: null,
    scale: { domain: [-0.6, 1.6], nice: false, zero: false },
    axis: { values: [0, 1], labelExpr: "datum.value === 0 ? 'R0' : 'R3'", grid: false, labelFontSize: 12 },
  };
  const y = { field: 'rate', type: 'quantitative' as const, scale: PERCENT_SCALE, axis: PERCENT_AXIS, title: 'First-sight commitment' };
  const color = { field: 'model', type: 'nominal' as const, scale: categoryScale(names), legend: null };
  const kind = (k: string, ...more: string[]) => ({ filter: [`datum.kind === '${k}'`, ...more].join(' && ') });
  const seedPoint = { type: 'point', shape: 'circle', size: 24, strokeWidth: 1.2, opacity: 0.8 } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    data: { values: [...seedRows, ...pooledRows] },
    facet: { column: { field: 'model', type: 'nominal', title: null, sort: names, header: { labelFontWeight: 'bold' } } },
    spacing: 14,
    spec: {
      width: 160,
      height: 260,
      encoding: { x, y, color },
      layer: [
        {
          name: 'seedLines',
          transform: [kind('seed', 'datum.paired')],
          mark: { type: 'line', strokeWidth: 0.8, opacity: 0.35 },
          encoding: { detail: { field: 'seed', type: 'nominal' } },
        },
        { name: 'meanLine', transform: [kind('pooled')], mark: { type: 'line', strokeWidth: 2.4, opacity: 0.9 } },
        { name: 'seeds', transform: [kind('seed', '!datum.open')], mark: { ...seedPoint, filled: true } },
        // Open circles come last among the seeds: a filled point of the same rate never covers one.
        { name: 'openSeeds', transform: [kind('seed', 'datum.open')], mark: { ...seedPoint, fill: 'white', opacity: 1 } },
        {
          name: 'intervals',
          transform: [kind('pooled')],
          mark: { type: 'rule', strokeWidth: 2.2 },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
        {
          name: 'means',
          transform: [kind('pooled')],
          mark: { type: 'point', shape: 'circle', filled: true, size: 150, stroke: 'white', strokeWidth: 1.2, opacity: 1 },
        },
      ],
    },
  };
}

/** How far the pooled points stand out from the seeds' columns, in rungs. */
const POOLED_OFFSET = 0.34;
/** Seeds of one rate spread over at most this far either side of their column, a point's width apart when they fit. */
const SEED_SPREAD = 0.16;
const SEED_STEP = 0.08;

/**
 * Horizontal offsets that set the seeds of one column sharing a rate side by
 * side, in seed order: deterministic, and no seed hides another (many sit at
 * exactly 0% or 100%). A seed with a rate of its own stays on the column.
 */
function sideBySide(rates: readonly (number | null)[]): number[] {
  return rates.map((rate, i) => {
    const same = rates.flatMap((other, j) => (other === rate ? [j] : []));
    const step = Math.min(SEED_STEP, (2 * SEED_SPREAD) / Math.max(1, same.length - 1));
    return (same.indexOf(i) - (same.length - 1) / 2) * step;
  });
}

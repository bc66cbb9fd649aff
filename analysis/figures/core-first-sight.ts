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
 * with no R3 build), and a large point with a 95% interval bar gives each pooled rate.
 */
export function coreFirstSightSpec(models: readonly ModelFirstSight[]): TopLevelSpec {
  const seedRows = models.flatMap(({ model, seeds }) =>
    seeds.flatMap(({ seed, r0, r3, r3Builds }) => {
      const paired = r0 !== null && r3 !== null;
      return [
        ...(r0 === null ? [] : [{ kind: 'seed', model, seed, x: 0, rate: r0, paired, open: r3Builds === 0 }]),
        ...(r3 === null ? [] : [{ kind: 'seed', model, seed, x: 1, rate: r3, paired, open: false }]),
      ];
    }),
  );
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
    scale: { domain: [-0.5, 1.5] },
    axis: { values: [0, 1], labelExpr: "datum.value === 0 ? 'R0' : 'R3'", grid: false, labelFontSize: 12 },
  };
  const y = { field: 'rate', type: 'quantitative' as const, scale: PERCENT_SCALE, axis: PERCENT_AXIS, title: 'First-sight commitment' };
  const color = { field: 'model', type: 'nominal' as const, scale: categoryScale(names), legend: null };
  const kind = (k: string, ...more: string[]) => ({ filter: [`datum.kind === '${k}'`, ...more].join(' && ') });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    data: { values: [...seedRows, ...pooledRows] },
    facet: { column: { field: 'model', type: 'nominal', title: null, sort: names, header: { labelFontWeight: 'bold' } } },
    spacing: 14,
    spec: {
      width: 120,
      height: 260,
      encoding: { x, y, color },
      layer: [
        {
          transform: [kind('seed', 'datum.paired')],
          mark: { type: 'line', strokeWidth: 0.8, opacity: 0.35 },
          encoding: { detail: { field: 'seed', type: 'nominal' } },
        },
        {
          transform: [kind('seed')],
          mark: { type: 'point', shape: 'circle', size: 24, strokeWidth: 1.2, opacity: 0.8 },
          encoding: { fill: { condition: { test: 'datum.open', value: 'white' }, ...color } },
        },
        {
          transform: [kind('pooled')],
          mark: { type: 'rule', strokeWidth: 2.2 },
          encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } },
        },
        {
          transform: [kind('pooled')],
          mark: { type: 'point', shape: 'circle', filled: true, size: 150, stroke: 'white', strokeWidth: 1.2, opacity: 1 },
        },
      ],
    },
  };
}

const POOLED_OFFSET = 0.22;

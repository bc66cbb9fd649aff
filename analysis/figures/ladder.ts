import type { TopLevelSpec } from 'vega-lite';
import type { Estimate } from './estimate.js';
import { CONFIG, PERCENT_AXIS, PERCENT_SCALE, categoryScale } from './theme.js';

export interface LadderInput {
  /** The x axis, left to right: rung names as they should read (e.g. reskins, R0, probe, R1, R2, R3). */
  readonly rungs: readonly string[];
  /** Per model, the pooled first-sight rate with its 95% interval at each rung it ran; others are left out. */
  readonly models: readonly { readonly model: string; readonly rates: Readonly<Record<string, Estimate>> }[];
  /** Rungs to shade, e.g. where post-training significantly lowers the rate (the paper's blue region). */
  readonly shaded?: readonly string[];
  /** The x axis's and the legend's titles (null: none); 'Rung' and 'Model' unless given. */
  readonly titles?: { readonly x?: string | null; readonly legend?: string | null };
}

/**
 * Figure 4 (fig:rl-transfer, and the frontier ladder): pooled first-sight
 * commitment per rung, one line per model through its rungs, models dodged
 * side by side so their 95% interval bars do not overlap.
 */
export function ladderSpec({ rungs, models, shaded = [], titles = {} }: LadderInput): TopLevelSpec {
  const names = models.map((m) => m.model);
  const dodge = Math.min(0.14, 0.6 / models.length);
  const values = models.flatMap(({ model, rates }, m) => {
    const unknown = Object.keys(rates).filter((rung) => !rungs.includes(rung));
    if (unknown.length > 0) throw new Error(`ladder figure: ${model} has rungs not on the axis: ${unknown.join(', ')}`);
    return rungs.flatMap((rung, i) => {
      const rate = rates[rung];
      if (rate === undefined) return [];
      const x = i + (m - (models.length - 1) / 2) * dodge;
      return [{ model, rung, x, rate: rate.value, low: rate.interval[0], high: rate.interval[1] }];
    });
  });
  const bands = shaded.map((rung) => {
    const i = rungs.indexOf(rung);
    if (i < 0) throw new Error(`ladder figure: shaded rung ${rung} is not on the axis`);
    return { x: i - 0.5, x2: i + 0.5 };
  });
  // A quantitative x with the rungs as tick labels: lines and dodged points share one position scale.
  // A rung name with a line break is a label of several lines.
  const label = `${JSON.stringify(rungs)}[datum.value]`;
  const x = {
    field: 'x',
    type: 'quantitative' as const,
    title: titles.x === undefined ? 'Rung' : titles.x,
    scale: { domain: [-0.5, rungs.length - 0.5], nice: false, zero: false },
    axis: {
      values: rungs.map((_, i) => i),
      labelExpr: rungs.some((rung) => rung.includes('\n')) ? `split(${label}, '\\n')` : label,
      grid: false,
    },
  };
  const y = { field: 'rate', type: 'quantitative' as const, scale: PERCENT_SCALE, axis: PERCENT_AXIS, title: 'First-sight commitment' };
  const color = {
    field: 'model',
    type: 'nominal' as const,
    scale: categoryScale(names),
    title: titles.legend === undefined ? 'Model' : titles.legend,
    sort: names,
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    width: 80 * rungs.length,
    height: 260,
    layer: [
      {
        data: { values: bands },
        mark: { type: 'rect', color: '#4c78a8', opacity: 0.1 },
        encoding: { x, x2: { field: 'x2' } },
      },
      {
        data: { values },
        encoding: { x, y, color },
        layer: [
          { mark: { type: 'line', strokeWidth: 1.5 } },
          { mark: { type: 'rule', strokeWidth: 2 }, encoding: { y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' } } },
          { mark: { type: 'point', shape: 'circle', filled: true, size: 60, opacity: 1, stroke: 'white', strokeWidth: 1 } },
        ],
      },
    ],
  };
}

import type { TopLevelSpec } from 'vega-lite';
import type { Estimate } from './estimate.js';
import { CONFIG, PERCENT_AXIS, categoryScale } from './theme.js';

export interface ModelScores {
  readonly model: string;
  /** Pooled Score (utility over hindsight optimum) with its 95% interval, per rung. */
  readonly r0: Estimate;
  readonly r2: Estimate;
}

/**
 * Figure 3 (fig:score): each model's R2 Score against its R0 Score. A shaded box
 * spans both marginal intervals (not a joint region: the rungs share seeds); the
 * dashed diagonal is full transfer, and the tinted half below it is R2 < R0.
 * Both axes share one range, from the tenth below the lowest interval to 100%.
 */
export function scoreSpec(models: readonly ModelScores[]): TopLevelSpec {
  const values = models.map(({ model, r0, r2 }) => ({
    model,
    r0: r0.value,
    r2: r2.value,
    r0Low: r0.interval[0],
    r0High: r0.interval[1],
    r2Low: r2.interval[0],
    r2High: r2.interval[1],
  }));
  const lowest = Math.min(0.9, ...models.flatMap(({ r0, r2 }) => [r0.interval[0], r2.interval[0]]));
  const floor = Math.floor(lowest * 10) / 10;
  const domain = [floor, 1];
  const axis = (title: string) => ({
    field: 'r0',
    type: 'quantitative' as const,
    title,
    scale: { domain, nice: false },
    axis: PERCENT_AXIS,
  });
  const x = axis('Score at R0 (abstract)');
  const y = { ...axis('Score at R2 (code)'), field: 'r2' };
  const color = {
    field: 'model',
    type: 'nominal' as const,
    scale: categoryScale(models.map((m) => m.model)),
    title: 'Model',
    legend: { symbolOpacity: 1 },
  };
  const diagonal = {
    values: [
      { r0: floor, r2: floor },
      { r0: 1, r2: 1 },
    ],
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    width: 300,
    height: 300,
    encoding: { x, y },
    layer: [
      {
        data: diagonal,
        mark: { type: 'area', color: '#f58518', opacity: 0.08 },
        encoding: { y2: { datum: floor } },
      },
      { data: diagonal, mark: { type: 'line', color: '#777', strokeDash: [4, 4], strokeWidth: 1 } },
      {
        data: { values },
        mark: { type: 'rect', opacity: 0.18 },
        encoding: {
          x: { field: 'r0Low', type: 'quantitative' },
          x2: { field: 'r0High' },
          y: { field: 'r2Low', type: 'quantitative' },
          y2: { field: 'r2High' },
          color,
        },
      },
      {
        data: { values },
        mark: { type: 'point', shape: 'circle', filled: true, size: 90, opacity: 1, stroke: 'white', strokeWidth: 1 },
        encoding: { color },
      },
    ],
  };
}

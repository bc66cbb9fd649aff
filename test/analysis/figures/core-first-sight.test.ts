import { describe, expect, it } from 'vitest';
import { coreFirstSightSpec, renderFigure, type ModelFirstSight } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

/*
 * Hand-built: Haiku has two paired seeds, a seed that commits at R0 but builds no
 * script at R3 (r3 null, an open circle) and one with no R0 commitment; Opus has
 * two paired seeds and one with no R3 build. 11 seed points, 2 open; 4 lines.
 */
const models: ModelFirstSight[] = [
  {
    model: 'Haiku 4.5',
    seeds: [
      { seed: 2000, r0: 0.2, r3: 1, r3Builds: 3 },
      { seed: 2001, r0: 0.5, r3: 0.8, r3Builds: 2 },
      { seed: 2002, r0: 0, r3: null, r3Builds: 0 },
      { seed: 2003, r0: null, r3: 1, r3Builds: 1 },
    ],
    pooled: { r0: { value: 0.25, interval: [0.1, 0.4] }, r3: { value: 0.95, interval: [0.85, 1] } },
  },
  {
    model: 'Opus 4.8',
    seeds: [
      { seed: 2000, r0: 0.1, r3: 1, r3Builds: 3 },
      { seed: 2001, r0: 0.3, r3: null, r3Builds: 0 },
      { seed: 2002, r0: 0.25, r3: 0.9, r3Builds: 2 },
    ],
    pooled: { r0: { value: 0.2, interval: [0.08, 0.3] }, r3: { value: 0.96, interval: [0.9, 1] } },
  },
];
const render = () => renderFigure(coreFirstSightSpec(models));

describe('R0 versus R3 first-sight figure', () => {
  it('joins paired seeds, opens the seeds without an R3 build and bars the pooled rates', async () => {
    const figure = await render();
    const seeds = markItems(figure.svg, 'symbol', 'child_layer_1_marks');
    expect(seeds).toHaveLength(11);
    expect(seeds.filter((s) => s.includes('fill="white"'))).toHaveLength(2);
    expect(markItems(figure.svg, 'line', 'child_layer_0_marks')).toHaveLength(4);
    expect(markItems(figure.svg, 'rule', 'child_layer_2_marks')).toHaveLength(4);
    const pooled = markItems(figure.svg, 'symbol', 'child_layer_3_marks');
    expect(pooled).toHaveLength(4);
    expect(pooled.filter((p) => p.includes('fill="#f58518"'))).toHaveLength(2);
    for (const text of ['First-sight commitment', 'Haiku 4.5', 'Opus 4.8', 'R0', 'R3', '0%', '100%'])
      expect(figure.svg).toContain(`>${text}</text>`);
    await expectWellRendered(figure, render);
  });
});

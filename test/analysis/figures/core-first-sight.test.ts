import { describe, expect, it } from 'vitest';
import { coreFirstSightSpec, renderFigure, type ModelFirstSight } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

/*
 * Hand-built: Haiku has two paired seeds, a seed that commits at R0 but builds no
 * script at R3 (r3 null, an open circle) and one with no R0 commitment; Opus has
 * two paired seeds and one with no R3 build. 11 seed points, 2 open; 4 seed lines, 2 mean lines.
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

/** A point's position in its panel, from its `translate(x,y)`. */
const position = (item: string) => {
  const [, x, y] = /translate\(([\d.-]+),([\d.-]+)\)/.exec(item) ?? [];
  return { x: Number(x), y: Number(y) };
};

describe('R0 versus R3 first-sight figure', () => {
  it('joins paired seeds and the pooled rates, opens the seeds without an R3 build and bars the pooled rates', async () => {
    const figure = await render();
    const filled = markItems(figure.svg, 'symbol', 'seeds_marks');
    const open = markItems(figure.svg, 'symbol', 'openSeeds_marks');
    expect(filled).toHaveLength(9);
    expect(open).toHaveLength(2);
    expect(open.every((s) => s.includes('fill="white"'))).toBe(true);
    expect(markItems(figure.svg, 'line', 'seedLines_marks')).toHaveLength(4);
    expect(markItems(figure.svg, 'rule', 'intervals_marks')).toHaveLength(4);
    // One line per model joins its R0 mean to its R3 mean, wider than the seeds' lines.
    const meanLines = markItems(figure.svg, 'line', 'meanLine_marks');
    expect(meanLines).toHaveLength(2);
    const width = (item: string | undefined) => Number(/stroke-width="([\d.]+)"/.exec(item ?? '')?.[1]);
    expect(width(meanLines[0])).toBeGreaterThan(2 * width(markItems(figure.svg, 'line', 'seedLines_marks')[0]));
    const pooled = markItems(figure.svg, 'symbol', 'means_marks');
    expect(pooled).toHaveLength(4);
    expect(pooled.filter((p) => p.includes('fill="#f58518"'))).toHaveLength(2);
    for (const text of ['First-sight commitment', 'Haiku 4.5', 'Opus 4.8', 'R0', 'R3', '0%', '100%'])
      expect(figure.svg).toContain(`>${text}</text>`);
    await expectWellRendered(figure, render);
  });

  it('sets seeds of equal rate side by side, deterministically, with open circles drawn over filled ones', async () => {
    // Four seeds at 0% at R0, one of them without an R3 build; three at 100% at R3; one seed alone at 50%.
    const model: ModelFirstSight = {
      model: 'M',
      seeds: [
        { seed: 2000, r0: 0, r3: 1, r3Builds: 3 },
        { seed: 2001, r0: 0, r3: null, r3Builds: 0 },
        { seed: 2002, r0: 0, r3: 1, r3Builds: 2 },
        { seed: 2003, r0: 0, r3: 1, r3Builds: 1 },
        { seed: 2004, r0: 0.5, r3: null, r3Builds: 0 },
      ],
      pooled: { r0: { value: 0.2, interval: [0, 0.4] }, r3: { value: 1, interval: [1, 1] } },
    };
    const { svg } = await renderFigure(coreFirstSightSpec([model]));
    const filled = markItems(svg, 'symbol', 'seeds_marks').map(position);
    const open = markItems(svg, 'symbol', 'openSeeds_marks').map(position);
    expect(open).toHaveLength(2);
    const zero = Math.max(...filled.map((p) => p.y));
    const atZero = [...filled.filter((p) => p.y === zero), ...open.filter((p) => p.y === zero)].map((p) => p.x);
    expect(atZero).toHaveLength(4);
    expect(new Set(atZero).size).toBe(4);
    const atHundred = filled.filter((p) => p.y === 0).map((p) => p.x);
    expect(new Set(atHundred).size).toBe(3);
    // The open circle at 0% sits beside the filled points of the same rate, and its mark is drawn after theirs.
    expect(open.some((p) => p.y === zero && !filled.some((f) => f.y === zero && Math.abs(f.x - p.x) < 1))).toBe(true);
    expect(svg.indexOf('openSeeds_marks')).toBeGreaterThan(svg.indexOf('"mark-symbol role-mark seeds_marks'));
    // The offsets follow from the seeds' order alone: a seed with a rate of its own stays on the column, where the 0% group is centred.
    const alone = open.find((p) => p.y !== zero)?.x as number;
    expect(atZero.reduce((sum, x) => sum + x, 0) / 4).toBeCloseTo(alone, 9);
    expect((await renderFigure(coreFirstSightSpec([model]))).svg).toBe(svg);
  });
});

import { describe, expect, it } from 'vitest';
import { ladderSpec, renderFigure, type LadderInput } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

const rate = (value: number) => ({ value, interval: [Math.max(0, value - 0.1), Math.min(1, value + 0.1)] as const });
/* Hand-built: base at five rungs, post-trained at three; the probe is shaded. 8 points, 2 lines. */
const input: LadderInput = {
  rungs: ['R0', 'probe', 'R1', 'R2', 'R3'],
  shaded: ['R0', 'probe'],
  models: [
    { model: 'Qwen base', rates: { R0: rate(0.74), probe: rate(0.8), R1: rate(0.9), R2: rate(0.95), R3: rate(0.97) } },
    { model: 'Qwen post-trained', rates: { R0: rate(0.06), probe: rate(0.3), R1: rate(0.88) } },
  ],
};
const render = () => renderFigure(ladderSpec(input));

describe('first-sight ladder figure', () => {
  it('draws a dodged point and interval per model and rung, a line per model and the shaded rungs', async () => {
    const figure = await render();
    const points = markItems(figure.svg, 'symbol');
    expect(points).toHaveLength(8);
    expect(markItems(figure.svg, 'rule')).toHaveLength(8);
    expect(markItems(figure.svg, 'line')).toHaveLength(2);
    expect(markItems(figure.svg, 'rect')).toHaveLength(2);
    // 80px a rung; two models dodge 0.14 of a rung (11.2px) either side of its centre at 40px.
    const xs = points.map((p) => Number(/translate\(([\d.]+),/.exec(p)?.[1]));
    expect(xs[0]).toBeCloseTo(40 - 5.6, 5);
    expect(xs[5]).toBeCloseTo(40 + 5.6, 5);
    for (const text of ['First-sight commitment', 'Rung', 'R0', 'probe', 'R3', 'Model', 'Qwen post-trained'])
      expect(figure.svg).toContain(`>${text}</text>`);
    await expectWellRendered(figure, render);
  });

  it('renders without shading and refuses rungs off the axis', async () => {
    const plain = await renderFigure(ladderSpec({ ...input, shaded: undefined }));
    expect(markItems(plain.svg, 'rect')).toHaveLength(0);
    expect(() => ladderSpec({ ...input, rungs: ['R0', 'R1'] })).toThrow(/Qwen base has rungs not on the axis: probe, R2, R3/);
    expect(() => ladderSpec({ ...input, shaded: ['reskins'] })).toThrow(/shaded rung reskins/);
  });
});

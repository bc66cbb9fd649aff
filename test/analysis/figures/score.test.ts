import { describe, expect, it } from 'vitest';
import { renderFigure, scoreSpec, type ModelScores } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

const models: ModelScores[] = [
  { model: 'Haiku 4.5', r0: { value: 0.72, interval: [0.66, 0.78] }, r2: { value: 0.6, interval: [0.52, 0.67] } },
  { model: 'GPT-5.6 Sol', r0: { value: 0.78, interval: [0.73, 0.83] }, r2: { value: 0.79, interval: [0.74, 0.84] } },
  { model: 'Opus 4.8', r0: { value: 0.8, interval: [0.75, 0.85] }, r2: { value: 0.62, interval: [0.55, 0.7] } },
];
const render = () => renderFigure(scoreSpec(models));

describe('Score R0 versus R2 figure', () => {
  it('draws a point and an interval box per model over the diagonal', async () => {
    const figure = await render();
    expect(markItems(figure.svg, 'symbol')).toHaveLength(3);
    const boxes = markItems(figure.svg, 'rect');
    expect(boxes).toHaveLength(3);
    // Both axes run 50-100% (the tenth below the lowest bound, 52%) over 300px, 6px a point:
    // Haiku's box spans R0 66-78% and R2 52-67%.
    const [x, y, width, height] = (/d="M([\d.]+),([\d.]+)h([\d.]+)v([\d.]+)h/.exec(boxes[0] as string) ?? []).slice(1).map(Number);
    expect([x, y, width, height].map((v) => Math.round(v as number))).toEqual([96, 198, 72, 90]);
    const [diagonal] = markItems(figure.svg, 'line');
    expect(diagonal).toMatch(/d="M0,300L300,0"/);
    expect(markItems(figure.svg, 'area')).toHaveLength(1);
    for (const text of ['Score at R0 (abstract)', 'Score at R2 (code)', 'Model', 'GPT-5.6 Sol', '50%', '100%'])
      expect(figure.svg).toContain(`>${text}</text>`);
    await expectWellRendered(figure, render);
  });
});

import { describe, expect, it } from 'vitest';
import { economicSpec, OPTIMUM_LABEL, renderFigure, type EconomicCell } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

const hazard = (value: number) => ({ value, interval: [Math.max(0, value - 0.05), Math.min(1, value + 0.05)] as const });
/* Hand-built: B in {1, 3} by K in {0, 10, 24}; R2 is missing at (3, 24). 11 frame points. */
const cells: EconomicCell[] = [
  { budget: 3, charge: 24, hazard: { R0: hazard(0.057) }, optimum: 0.01 },
  { budget: 1, charge: 0, hazard: { R0: hazard(0.141), R2: hazard(1) }, optimum: 0.2 },
  { budget: 1, charge: 10, hazard: { R0: hazard(0.017), R2: hazard(1) }, optimum: 0.05 },
  { budget: 1, charge: 24, hazard: { R0: hazard(0.009), R2: hazard(0.852) }, optimum: 0.01 },
  { budget: 3, charge: 0, hazard: { R0: hazard(0.227), R2: hazard(0.973) }, optimum: 0.25 },
  { budget: 3, charge: 10, hazard: { R0: hazard(0.049), R2: hazard(1) }, optimum: 0.06 },
];
const render = () => renderFigure(economicSpec(cells));

describe('economic hazard figure', () => {
  it('draws a panel per budget with a line per frame and the dashed optimum', async () => {
    const figure = await render();
    expect(markItems(figure.svg, 'symbol')).toHaveLength(11);
    expect(markItems(figure.svg, 'rule')).toHaveLength(11);
    const lines = markItems(figure.svg, 'line');
    expect(lines).toHaveLength(6);
    expect(lines.filter((l) => l.includes('stroke-dasharray="5,3"') && l.includes('stroke="#111"'))).toHaveLength(2);
    for (const text of ['B = 1', 'B = 3', 'Build charge K', 'First-sight hazard', 'R0', 'R2', OPTIMUM_LABEL, '24'])
      expect(figure.svg).toContain(`>${text}</text>`);
    expect(figure.svg).not.toContain('>B = 5</text>');
    await expectWellRendered(figure, render);
  });
});

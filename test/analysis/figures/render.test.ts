import type { TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { readAdvanceWidths } from '../../../analysis/figures/advance-widths.js';
import { FONT_FAMILY, FONT_FILES } from '../../../analysis/figures/font.js';
import { renderFigure, scoreSpec, ladderSpec } from '../../../analysis/figures/index.js';
import { textWidth } from '../../../analysis/figures/text-metrics.js';
import { inkShare, markItems } from './inspect.js';

const words: TopLevelSpec = {
  width: 200,
  height: 40,
  data: { values: [{ t: 'Hello, figures' }] },
  mark: { type: 'text', fontSize: 20 },
  encoding: { text: { field: 't' } },
};

describe('renderFigure', () => {
  it('rasterizes text with the bundled font alone', async () => {
    const { svg, png } = await renderFigure({ ...words, config: { font: FONT_FAMILY } });
    expect(markItems(svg, 'text')[0]).toContain(`font-family="${FONT_FAMILY}"`);
    expect(inkShare(png)).toBeGreaterThan(0.005);
  });

  it("lays text out with the font's own advance widths", () => {
    const regular = readAdvanceWidths(FONT_FILES.regular);
    expect(regular.of('a'.codePointAt(0) as number)).toBe(1255 / 2048);
    expect(regular.of(0x10ffff)).toBe(regular.of(0)); // missing glyph
    expect(textWidth({ fontSize: 10 }, ' aa ')).toBeCloseTo(2 * 6.1279296875, 9);
    expect(textWidth({ fontSize: 10, fontWeight: 'bold' }, 'aa')).toBeGreaterThan(textWidth({ fontSize: 10 }, 'aa'));
    expect(textWidth({}, 100)).toBeCloseTo(3 * 11 * (1303 / 2048), 9); // Vega's default 11px
  });

  it('never loads anything: data comes inline', async () => {
    await expect(renderFigure({ ...words, data: { url: 'https://example.com/data.json' } })).rejects.toThrow(/refused to load/);
  });

  it('fails on a Vega-Lite warning instead of dropping an encoding', async () => {
    await expect(renderFigure({ ...words, mark: 'line', encoding: { theta: { field: 't', type: 'quantitative' } } })).rejects.toThrow(
      /theta dropped as it is incompatible with "line"/,
    );
  });

  it('gives the same bytes when figures render concurrently', async () => {
    const a = scoreSpec([{ model: 'M', r0: { value: 0.8, interval: [0.7, 0.9] }, r2: { value: 0.5, interval: [0.4, 0.6] } }]);
    const b = ladderSpec({ rungs: ['R0', 'R1'], models: [{ model: 'M', rates: { R0: { value: 0.2, interval: [0.1, 0.3] } } }] });
    const alone = [(await renderFigure(a)).svg, (await renderFigure(b)).svg];
    const together = (await Promise.all([renderFigure(a), renderFigure(b), renderFigure(a)])).map((f) => f.svg);
    expect(together).toEqual([alone[0], alone[1], alone[0]]);
  });
});

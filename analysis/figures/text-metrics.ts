import * as vega from 'vega';
import { readAdvanceWidths } from './advance-widths.js';
import { FONT_FILES } from './font.js';

/** The slice of a Vega text item that its width depends on. */
interface TextItem {
  readonly fontSize?: number | string | null;
  readonly fontWeight?: number | string | null;
}

interface VegaTextMetrics {
  width: (item: TextItem, text: unknown) => number;
}

const regular = readAdvanceWidths(FONT_FILES.regular);
const bold = readAdvanceWidths(FONT_FILES.bold);

/** Width in pixels of one line of text, as the bundled font sets it. */
export function textWidth(item: TextItem, text: unknown): number {
  const size = item.fontSize == null ? 11 : Number(item.fontSize) || 0; // Vega's default size
  const widths = isBold(item.fontWeight) ? bold : regular;
  let em = 0;
  for (const character of text == null ? '' : String(text).trim()) em += widths.of(character.codePointAt(0) as number);
  return em * size;
}

function isBold(weight: TextItem['fontWeight']): boolean {
  return weight === 'bold' || weight === 'bolder' || Number(weight) >= 600;
}

/**
 * Without a canvas, Vega lays text out with a crude estimate (0.8 em a character),
 * and with node-canvas it would depend on the machine's fonts. Its scenegraph
 * exposes `textMetrics.width` as the hook for measuring otherwise (as vl-convert
 * does); the typings omit it. Setting it makes layout match the bundled font.
 */
export function measureTextWithBundledFont(): void {
  (vega as unknown as { textMetrics: VegaTextMetrics }).textMetrics.width = textWidth;
}

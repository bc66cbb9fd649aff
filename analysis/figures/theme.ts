import type { Config } from 'vega-lite';
import { FONT_FAMILY } from './font.js';

/**
 * Paper defaults shared by every figure: the bundled font at print sizes, quiet
 * axes, light gridlines, no label truncation (the text metrics are exact). ARIA
 * labels are off: they would spell out internal encodings (dodge offsets) in the SVG.
 */
export const CONFIG: Config = {
  aria: false,
  font: `${FONT_FAMILY}, sans-serif`,
  background: 'white',
  padding: 6,
  view: { stroke: null },
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: 'normal',
    titleColor: '#222',
    labelColor: '#333',
    labelLimit: 0,
    domainColor: '#777',
    tickColor: '#777',
    gridColor: '#e8e8e8',
  },
  legend: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 'normal', labelLimit: 0, titleLimit: 0 },
  header: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: 'normal', labelColor: '#222' },
};

/**
 * Categorical colours (Vega's tableau10), handed out in the order the data lists
 * models or classes, so a figure's colours follow its input and never its values.
 */
export const PALETTE = [
  '#4c78a8',
  '#f58518',
  '#e45756',
  '#72b7b2',
  '#54a24b',
  '#eeca3b',
  '#b279a2',
  '#ff9da6',
  '#9d755d',
  '#bab0ac',
] as const;

/** The colour scale for categories listed in order (cycling past ten). */
export function categoryScale(domain: readonly string[]): { domain: string[]; range: string[] } {
  return { domain: [...domain], range: domain.map((_, i) => PALETTE[i % PALETTE.length] as string) };
}

/** Scale and axis of a 0-100% rate. */
export const PERCENT_SCALE = { domain: [0, 1], nice: false };
export const PERCENT_AXIS = { format: '.0%', tickCount: 5 };

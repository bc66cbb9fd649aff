import { Resvg } from '@resvg/resvg-js';
import { expect } from 'vitest';
import { PNG_SCALE, type RenderedFigure } from '../../../analysis/figures/index.js';

/** Items (`<path>`, `<line>` or `<text>`) of the data marks of a type, or of the marks of that type named `name`. */
export function markItems(svg: string, type: 'symbol' | 'line' | 'rule' | 'rect' | 'text' | 'area', name?: string): string[] {
  const items: string[] = [];
  // A mark's group holds only leaf items, so its first </g> closes it; an empty mark's group is self-closing.
  const marks = new RegExp(`<g class="mark-${type} role-mark ([\\w-]+)"(?:[^>]*/>|[^>]*(?<!/)>(.*?)</g>)`, 'gs');
  for (const [, markName, body = ''] of svg.matchAll(marks)) {
    if (name === undefined || markName === name) items.push(...(body.match(/<(path|line|text)\b.*?(\/>|<\/text>)/gs) ?? []));
  }
  return items;
}

/** The SVG document's size in px. */
export function svgSize(svg: string): { width: number; height: number } {
  const match = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg);
  if (!match) throw new Error('no svg size');
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  expect(String.fromCharCode(...png.subarray(12, 16))).toBe('IHDR');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Share of the PNG's pixels that are not white, decoded by resvg (the PNG drawn as an SVG image). */
export function inkShare(png: Uint8Array): number {
  const { width, height } = pngSize(png);
  const href = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
  const pixels = new Resvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image width="${width}" height="${height}" href="${href}"/></svg>`,
  ).render().pixels;
  let inked = 0;
  for (let i = 0; i < pixels.length; i += 4)
    if ((pixels[i] as number) < 250 || (pixels[i + 1] as number) < 250 || (pixels[i + 2] as number) < 250) inked++;
  return inked / (width * height);
}

/** Checks shared by every figure: the PNG matches the SVG at PNG_SCALE and has ink, and a second render is byte-identical. */
export async function expectWellRendered(figure: RenderedFigure, rerender: () => Promise<RenderedFigure>): Promise<void> {
  const { width, height } = svgSize(figure.svg);
  expect(pngSize(figure.png)).toEqual({ width: width * PNG_SCALE, height: height * PNG_SCALE });
  const ink = inkShare(figure.png);
  expect(ink).toBeGreaterThan(0.01);
  expect(ink).toBeLessThan(0.5);
  const again = await rerender();
  expect(again.svg).toBe(figure.svg);
  expect(Buffer.from(again.png).equals(Buffer.from(figure.png))).toBe(true);
}

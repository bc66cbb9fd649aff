import { readFileSync } from 'node:fs';

/** Horizontal advance of each character, in em, read from a TrueType file. */
export interface AdvanceWidths {
  /** Advance of a code point, or of the missing glyph where the font lacks it. */
  of(codePoint: number): number;
}

/**
 * Reads the `cmap` (format 4, the Basic Multilingual Plane) and `hmtx` tables:
 * all a text width needs. Kerning is left out, a sub-pixel difference at label sizes.
 */
export function readAdvanceWidths(path: string): AdvanceWidths {
  const data = readFileSync(path);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const tables = new Map<string, number>();
  for (let i = 0, n = view.getUint16(4); i < n; i++) {
    const record = 12 + 16 * i;
    tables.set(data.toString('latin1', record, record + 4), view.getUint32(record + 8));
  }
  const table = (tag: string): number => {
    const offset = tables.get(tag);
    if (offset === undefined) throw new Error(`${path}: no '${tag}' table`);
    return offset;
  };
  const unitsPerEm = view.getUint16(table('head') + 18);
  const metricCount = view.getUint16(table('hhea') + 34);
  const hmtx = table('hmtx');
  // Glyphs past the last long metric share its advance.
  const advance = (glyph: number) => view.getUint16(hmtx + 4 * Math.min(glyph, metricCount - 1)) / unitsPerEm;

  const glyphs = new Map<number, number>();
  const cmap = unicodeSubtable(view, table('cmap'), path);
  const segments = view.getUint16(cmap + 6) / 2;
  const ends = cmap + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const rangeOffsets = deltas + 2 * segments;
  for (let s = 0; s < segments; s++) {
    const start = view.getUint16(starts + 2 * s);
    const end = view.getUint16(ends + 2 * s);
    const delta = view.getUint16(deltas + 2 * s);
    const rangeOffsetAt = rangeOffsets + 2 * s;
    const rangeOffset = view.getUint16(rangeOffsetAt);
    for (let c = start; c <= end && c !== 0xffff; c++) {
      const raw = rangeOffset === 0 ? c : view.getUint16(rangeOffsetAt + rangeOffset + 2 * (c - start));
      const glyph = raw === 0 ? 0 : (raw + delta) & 0xffff;
      if (glyph !== 0) glyphs.set(c, advance(glyph));
    }
  }
  const missing = advance(0);
  return { of: (codePoint) => glyphs.get(codePoint) ?? missing };
}

/** Offset of the Windows or Unicode BMP subtable, which is format 4. */
function unicodeSubtable(view: DataView, cmap: number, path: string): number {
  for (let i = 0, n = view.getUint16(cmap + 2); i < n; i++) {
    const record = cmap + 4 + 8 * i;
    const platform = view.getUint16(record);
    const encoding = view.getUint16(record + 2);
    const subtable = cmap + view.getUint32(record + 4);
    const bmp = (platform === 3 && encoding === 1) || (platform === 0 && encoding === 3);
    if (bmp && view.getUint16(subtable) === 4) return subtable;
  }
  throw new Error(`${path}: no format-4 Unicode cmap`);
}

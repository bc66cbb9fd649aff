import { createRequire } from 'node:module';

/**
 * The one font figures use, DejaVu Sans (matplotlib's default, so the figures match
 * the paper's look). It comes from the `dejavu-fonts-ttf` package rather than the
 * system, so text lays out and rasterizes the same on every machine, with or
 * without fonts installed.
 */
export const FONT_FAMILY = 'DejaVu Sans';

const resolve = createRequire(import.meta.url).resolve;

/** TrueType files: regular for labels, bold for emphasized text. */
export const FONT_FILES = {
  regular: resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
} as const;

/** An estimate with its 95% bootstrap interval; null parts are undefined (no commitments, no seeds). */
export interface Interval {
  readonly estimate: number | null;
  readonly low: number | null;
  readonly high: number | null;
}

export type Cell = string | number | null | Interval;

/** How a column's numbers read: rates and differences in percent or points, counts, plain values. */
export type ColumnFormat = 'text' | 'percent' | 'points' | 'fixed' | 'integer';

export interface Column {
  readonly name: string;
  readonly format: ColumnFormat;
}

/** A table as data: rendered to Markdown, CSV and LaTeX by the renderers. */
export interface Table {
  /** File stem, e.g. "framing-ladder". */
  readonly id: string;
  readonly title: string;
  /** What the table shows and how its numbers were computed. */
  readonly caption: string;
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Cell[])[];
}

export const isInterval = (cell: Cell): cell is Interval => cell !== null && typeof cell === 'object';

/** A model name as part of a table or figure id (file names): every run of other characters becomes '-'. */
export const idPart = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-');

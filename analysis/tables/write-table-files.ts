import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toCsv, toLatex, toMarkdown } from './render-table.js';
import type { Table } from './table.js';

/** Writes a table as `<id>.md`, `<id>.csv` and `<id>.tex` in `dir`. */
export async function writeTableFiles(dir: string, table: Table): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${table.id}.md`), toMarkdown(table));
  await writeFile(join(dir, `${table.id}.csv`), toCsv(table));
  await writeFile(join(dir, `${table.id}.tex`), toLatex(table));
}

/** Plain-text output helpers for the CLI: aligned tables, one JSON object. */

/** Columns listed in `leftAligned` pad on the right; the rest (numbers) on the left. The last column is never padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], leftAligned: readonly number[] = [0]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const pad = (cell: string, i: number) => {
    if (i === header.length - 1 && leftAligned.includes(i)) return cell;
    return leftAligned.includes(i) ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number);
  };
  const line = (row: readonly string[]) => row.map(pad).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

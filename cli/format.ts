/** Plain-text output helpers for the CLI. */

export function percent(value: number | null, digits = 1): string {
  return value === null ? '–' : `${(100 * value).toFixed(digits)}%`;
}

export function fixed(value: number | null, digits = 2): string {
  return value === null ? '–' : value.toFixed(digits);
}

/** Left-aligned first column, right-aligned numbers. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

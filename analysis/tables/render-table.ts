import { isInterval, type Cell, type ColumnFormat, type Table } from './table.js';

/** A number as the column reads it: "39.1%", "+12.5", "2.46", "7". */
function formatNumber(value: number | null, format: ColumnFormat, signed = false): string {
  if (value === null) return '–';
  switch (format) {
    case 'percent':
      return `${(100 * value).toFixed(1)}%`;
    case 'points':
      return `${signed && value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}`;
    case 'fixed':
      return value.toFixed(2);
    case 'integer':
      return String(Math.round(value));
    case 'text':
      return String(value);
  }
}

function formatCell(cell: Cell, format: ColumnFormat): string {
  if (cell === null) return '–';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return formatNumber(cell, format, format === 'points');
  const estimate = formatNumber(cell.estimate, format, format === 'points');
  if (cell.low === null || cell.high === null) return estimate;
  const bound = (value: number) => formatNumber(value, format === 'percent' ? 'points' : format, format === 'points');
  return `${estimate} [${bound(cell.low)}, ${bound(cell.high)}]`;
}

const formatted = (table: Table) => table.rows.map((row) => row.map((cell, i) => formatCell(cell, table.columns[i]?.format ?? 'text')));

export function toMarkdown(table: Table): string {
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const line = (cells: readonly string[]) => `| ${cells.map(escape).join(' | ')} |`;
  const align = table.columns.map((c) => (c.format === 'text' ? '---' : '---:'));
  return [
    `### ${table.title}`,
    '',
    line(table.columns.map((c) => c.name)),
    line(align),
    ...formatted(table).map(line),
    '',
    table.caption,
    '',
  ].join('\n');
}

/** CSV keeps full precision: an interval column becomes three (estimate, low, high); rates stay fractions. */
export function toCsv(table: Table): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const raw = (value: number | null) => (value === null ? '' : String(Number(value.toPrecision(12))));
  const hasInterval = table.columns.map((_, i) => table.rows.some((row) => isInterval(row[i] ?? null)));
  const header = table.columns.flatMap((c, i) => (hasInterval[i] ? [c.name, `${c.name} low`, `${c.name} high`] : [c.name]));
  const rows = table.rows.map((row) =>
    row.flatMap((cell, i) => {
      if (isInterval(cell)) return [raw(cell.estimate), raw(cell.low), raw(cell.high)];
      const text = cell === null ? '' : typeof cell === 'number' ? raw(cell) : cell;
      return hasInterval[i] ? [text, '', ''] : [text];
    }),
  );
  return [header, ...rows].map((cells) => cells.map(quote).join(',')).join('\n') + '\n';
}

export function toLatex(table: Table): string {
  const escape = (text: string) =>
    text.replace(/([\\&%$#_{}])/g, (c) => (c === '\\' ? '\\textbackslash{}' : `\\${c}`)).replaceAll('–', '--');
  const spec = table.columns.map((c) => (c.format === 'text' ? 'l' : 'r')).join('');
  const line = (cells: readonly string[]) => `${cells.map(escape).join(' & ')} \\\\`;
  return [
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{\\textbf{${escape(table.title)}.} ${escape(table.caption)}}`,
    `\\label{tab:${table.id}}`,
    '\\small',
    `\\begin{tabular}{${spec}}`,
    '\\toprule',
    line(table.columns.map((c) => c.name)),
    '\\midrule',
    ...formatted(table).map(line),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
    '',
  ].join('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

export function toHtml(table: Table): string {
  const head = table.columns.map((c) => `<th>${escapeHtml(c.name)}</th>`).join('');
  const body = formatted(table)
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => `<td class="${table.columns[i]?.format === 'text' ? 'text' : 'num'}">${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table id="${table.id}"><caption><b>${escapeHtml(table.title)}.</b> ${escapeHtml(table.caption)}</caption>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/** A table as machine-readable data: each row an object keyed by column name, rates as fractions, intervals as {estimate, low, high}. */
export function toJsonRows(table: Table): { id: string; title: string; caption: string; rows: Record<string, Cell>[] } {
  const names = table.columns.map((column) => column.name);
  return {
    id: table.id,
    title: table.title,
    caption: table.caption,
    rows: table.rows.map((row) => Object.fromEntries(names.map((name, i) => [name, row[i] ?? null]))),
  };
}

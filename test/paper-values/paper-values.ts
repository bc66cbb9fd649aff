import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The paper's printed numbers as EXTERNAL REFERENCES, one entry per printed
 * value (shared/paper/allocbench.tex): where the paper prints it, what it
 * prints and at which rounding, which of the authors' arms it comes from
 * (shared/paper/HARNESS.md, "which arm feeds which table cell"), and where
 * `allocbench analyze` puts our own value (a table of the report and a row and
 * column of it). Nothing here computes an estimand: a locator only reads a
 * cell of the report, and the check compares it with the printed value at the
 * paper's rounding. The bench (bench/paper-values.ts) and the test
 * (test/paper-values/paper-values.test.ts) run the same check.
 *
 * An entry whose value has no place in our outputs yet says what would be
 * needed (`missing`); values the stored runs cannot determine at all are in
 * NOT_DETERMINED, with the reason.
 */

// ---------------------------------------------------------------------------
// The report, as the locators read it

export type Row = Record<string, string>;

export interface Report {
  /** tables/<id>.csv, parsed: full precision, interval columns X / "X low" / "X high", rates as fractions. */
  readonly tables: ReadonlyMap<string, readonly Row[]>;
  /** exclusions.md, as text. */
  readonly exclusions: string;
  /** The arms imported and analysed: the Source column of cells.csv (the authors' arm paths). */
  readonly sources: ReadonlySet<string>;
}

/** One CSV line's cells (RFC 4180 quoting: a quoted cell may hold commas and doubled quotes). */
const cellsOf = (line: string) =>
  [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) => (m[1] ?? '').replace(/^"|"$/g, '').replaceAll('""', '"'));

export function parseCsv(text: string): Row[] {
  const [header, ...lines] = text.trim().split('\n');
  const names = cellsOf(header ?? '');
  return lines.map((line) => Object.fromEntries(cellsOf(line).map((cell, i) => [names[i] ?? '', cell])));
}

/** Reads what `allocbench analyze … --out dir` wrote. */
export function readReport(dir: string): Report {
  const tablesDir = join(dir, 'tables');
  const tables = new Map<string, Row[]>();
  for (const file of readdirSync(tablesDir)
    .filter((name) => name.endsWith('.csv'))
    .sort())
    tables.set(file.replace(/\.csv$/, ''), parseCsv(readFileSync(join(tablesDir, file), 'utf8')));
  const exclusionsPath = join(dir, 'exclusions.md');
  const exclusions = existsSync(exclusionsPath) ? readFileSync(exclusionsPath, 'utf8') : '';
  const sources = new Set((tables.get('cells') ?? []).map((row) => row.Source ?? '').filter((source) => source !== ''));
  return { tables, exclusions, sources };
}

// ---------------------------------------------------------------------------
// Entries

/**
 * How the paper prints a value, and so how ours is rounded before comparing:
 * percent (ours a fraction, printed ×100 to `digits` decimals), points (a
 * difference of fractions, printed in percentage points), fixed (printed as
 * is to `digits` decimals), count (an integer) or text (compared as a string:
 * "72/72", a range "57–79", a rung name).
 */
export type Rounding =
  | { readonly kind: 'percent' | 'points' | 'fixed'; readonly digits: number }
  | { readonly kind: 'count' }
  | { readonly kind: 'text' };

export interface Locator {
  /** Our table's id (tables/<id>.csv), or exclusions.md. */
  readonly table: string;
  /** Row and column, in words. */
  readonly at: string;
  /** Our value at full precision (a fraction for a rate), or a string; null when the row or cell is not there. */
  readonly locate: (report: Report) => number | string | null;
}

export interface PaperValue {
  readonly id: string;
  /** The group it is counted under (a table label or a section). */
  readonly group: string;
  /** Where the paper prints it: table or section, row and column. */
  readonly where: string;
  readonly printed: number | string;
  readonly rounding: Rounding;
  /** The authors' arms (run directory paths, as imported) the value comes from. */
  readonly arms: readonly string[];
  readonly locator?: Locator;
  /** The value has no place in our outputs yet: what would be needed. */
  readonly missing?: string;
  /** A known misprint in the paper: the arithmetic showing it, and what the paper should print (at its own rounding). */
  readonly misprint?: { readonly arithmetic: string; readonly correct: string };
  /** The id of the entry whose value this one prints again (the same number in the text). */
  readonly restates?: string;
  readonly note?: string;
}

// ---------------------------------------------------------------------------
// Locating cells

const num = (text: string | undefined): number | null => {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
};

const rowsOf = (report: Report, table: string) => report.tables.get(table) ?? [];

/** A ladder table's row (framing-ladder, paired-ladder-differences, zero-commit, score, decision-rules): the model's, at B = 3, N disclosed, this magnitude; robust to labels gaining " · magnitude 100", " · N disclosed" or " · B3". */
function ladderRow(report: Report, table: string, model: string, magnitude: number): Row | undefined {
  const allowed = new Set([`magnitude ${magnitude}`, 'N disclosed', 'B3']);
  return rowsOf(report, table).find((row) => {
    const [head, ...rest] = (row.Model ?? '').split(' · ');
    return head === model && rest.every((part) => allowed.has(part));
  });
}

/** A row labelled by arm (r3-builds, r3-family-builds, economic-surface, cell-diagnostics): the label names the source as one of its " · " parts. */
function armRow(report: Report, table: string, source: string): Row | undefined {
  return rowsOf(report, table).find((row) => (row.Arm ?? '').split(' · ').includes(source));
}

const cellRow = (report: Report, source: string) => rowsOf(report, 'cells').find((row) => row.Source === source);

/** The model's transfer ladder (transfer-<model>.csv): one panel's text cell. */
const transferId = (model: string) => `transfer-${model.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
const transferText = (report: Report, model: string, panel: string) =>
  rowsOf(report, transferId(model)).find((row) => row.Panel === panel)?.[model];

/** "73.6% (0.40)" or "58.2% (53/91)": the rate as a fraction, and the parenthesis. */
function splitTransfer(text: string | undefined): { rate: number; paren: string } | null {
  const match = /^(-?[\d.]+)% \(([^)]*)\)$/.exec(text ?? '');
  return match ? { rate: Number(match[1]) / 100, paren: match[2] ?? '' } : null;
}

const numerator = (text: string | undefined): number | null => num(/^(\d+)\//.exec(text ?? '')?.[1]);

const cell = (source: string, column: string): Locator => ({
  table: 'cells',
  at: `row Source = ${source}, column ${column}`,
  locate: (r) => num(cellRow(r, source)?.[column]),
});

const cellText = (source: string, column: string): Locator => ({
  table: 'cells',
  at: `row Source = ${source}, column ${column}`,
  locate: (r) => cellRow(r, source)?.[column] ?? null,
});

const ladder = (table: string, model: string, column: string, magnitude = 100): Locator => ({
  table,
  at: `row ${model}${magnitude === 100 ? '' : ` · magnitude ${magnitude}`}, column ${column}`,
  locate: (r) => num(ladderRow(r, table, model, magnitude)?.[column]),
});

const ladderText = (table: string, model: string, column: string, magnitude = 100): Locator => ({
  table,
  at: `row ${model}, column ${column}`,
  locate: (r) => ladderRow(r, table, model, magnitude)?.[column] ?? null,
});

/** "0/24" in a ladder table: the count before the slash. */
const ladderCount = (table: string, model: string, column: string): Locator => ({
  table,
  at: `row ${model}, column ${column} (the count before "/")`,
  locate: (r) => numerator(ladderRow(r, table, model, 100)?.[column]),
});

/** "0.96 ✓" in decision-rules: the number. */
const ladderLeadingNumber = (table: string, model: string, column: string): Locator => ({
  table,
  at: `row ${model}, column ${column} (its number)`,
  locate: (r) => num(/^-?[\d.]+/.exec(ladderRow(r, table, model, 100)?.[column] ?? '')?.[0]),
});

const arm = (table: string, source: string, column: string): Locator => ({
  table,
  at: `row of arm ${source}, column ${column}`,
  locate: (r) => num(armRow(r, table, source)?.[column]),
});

const armText = (table: string, source: string, column: string): Locator => ({
  table,
  at: `row of arm ${source}, column ${column}`,
  locate: (r) => armRow(r, table, source)?.[column] ?? null,
});

const armCount = (table: string, source: string, column: string): Locator => ({
  table,
  at: `row of arm ${source}, column ${column} (the count before "/")`,
  locate: (r) => numerator(armRow(r, table, source)?.[column]),
});

/** A sum of numeric columns over arm rows (null if any is absent). */
const armSum = (table: string, sources: readonly string[], columns: readonly string[]): Locator => ({
  table,
  at: `rows of ${sources.length === 1 ? `arm ${sources[0]}` : `arms ${sources.join(', ')}`}, sum of ${columns.join(' + ')}`,
  locate: (r) => {
    let total = 0;
    for (const source of sources)
      for (const column of columns) {
        const value = num(armRow(r, table, source)?.[column]);
        if (value === null) return null;
        total += value;
      }
    return total;
  },
});

const transferRate = (model: string, panel: string): Locator => ({
  table: transferId(model),
  at: `row ${panel}, column ${model} (the rate)`,
  locate: (r) => splitTransfer(transferText(r, model, panel))?.rate ?? null,
});

const transferParen = (model: string, panel: string): Locator => ({
  table: transferId(model),
  at: `row ${panel}, column ${model} (in parentheses)`,
  locate: (r) => splitTransfer(transferText(r, model, panel))?.paren ?? null,
});

/** Lateness in parentheses, as a number (the transfer table prints it to the paper's two decimals). */
const transferLateness = (model: string, panel: string): Locator => ({
  table: transferId(model),
  at: `row ${panel}, column ${model} (mean lateness in parentheses)`,
  locate: (r) => num(splitTransfer(transferText(r, model, panel))?.paren),
});

/** "lo–hi" of values rounded as the paper rounds them (e.g. "57–79" for first-sight rates in percent). */
function rangeText(values: readonly number[], rounding: Rounding): string {
  const shown = values.map((v) => Number(render(v, rounding)));
  return `${render(Math.min(...shown), { kind: 'fixed', digits: digitsOf(rounding) })}–${render(Math.max(...shown), { kind: 'fixed', digits: digitsOf(rounding) })}`;
}
const digitsOf = (rounding: Rounding) => ('digits' in rounding ? rounding.digits : 0);

const cellRange = (sources: readonly string[], column: string, rounding: Rounding): Locator => ({
  table: 'cells',
  at: `rows Source = ${sources.join(', ')}, column ${column}: lowest–highest`,
  locate: (r) => {
    const values = sources.map((source) => num(cellRow(r, source)?.[column]));
    return values.every((v): v is number => v !== null) ? rangeText(values, rounding) : null;
  },
});

const armRange = (table: string, sources: readonly string[], column: string, rounding: Rounding): Locator => ({
  table,
  at: `rows of arms ${sources.join(', ')}, column ${column}: lowest–highest`,
  locate: (r) => {
    const values = sources.map((source) => num(armRow(r, table, source)?.[column]));
    return values.every((v): v is number => v !== null) ? rangeText(values, rounding) : null;
  },
});

/** The paired transfer table of checkpoint b against the base a (transfer-<b>-vs-<a>.csv), written by analyze for each checkpoint. */
const pairedId = (b: string, a: string) => `transfer-${b.replace(/[^A-Za-z0-9._-]+/g, '-')}-vs-${a.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
const pairedRow = (report: Report, b: string, a: string, panels: readonly string[]) =>
  rowsOf(report, pairedId(b, a)).find((row) => panels.includes(row.Panel ?? ''));

/** B − A of a panel of the paired transfer table (its interval columns), in points for rates. */
const pairedDelta =
  (b: string, a: string, panels: readonly string[]) =>
  (suffix: string): Locator => ({
    table: pairedId(b, a),
    at: `row Panel = ${panels.join(' or ')}, column B − A [95% CI]${suffix}`,
    locate: (r) => num(pairedRow(r, b, a, panels)?.[`B − A [95% CI]${suffix}`]),
  });

/** B − A of items per stream, which the paired table prints as text "+2.8 [-1.8, +7.1]" (items, not a fraction). */
const pairedItemsDelta =
  (b: string, a: string) =>
  (suffix: string): Locator => ({
    table: pairedId(b, a),
    at: `row Panel = Items/stream (R0), column B − A [95% CI] (text, part${suffix || ' estimate'})`,
    locate: (r) => {
      const match = /^([+-]?[\d.]+) \[([+-]?[\d.]+), ([+-]?[\d.]+)\]$/.exec(
        pairedRow(r, b, a, ['Items/stream (R0)'])?.['B − A [95% CI]'] ?? '',
      );
      return match ? num(match[suffix === '' ? 1 : suffix === ' low' ? 2 : 3]) : null;
    },
  });

/** The lowest or highest B − A (estimate) over some panels of a paired transfer table. */
const pairedDeltaExtreme = (b: string, a: string, panels: readonly string[], pick: 'min' | 'max'): Locator => ({
  table: pairedId(b, a),
  at: `rows Panel = ${panels.join(', ')}, column B − A [95% CI]: the ${pick === 'min' ? 'lowest' : 'highest'}`,
  locate: (r) => {
    const values = panels.map((panel) => num(pairedRow(r, b, a, [panel])?.['B − A [95% CI]']));
    return values.every((v): v is number => v !== null) ? Math[pick](...values) : null;
  },
});

/** The highest value of a column over some arms' rows. */
const armMax = (table: string, sources: readonly string[], column: string): Locator => ({
  table,
  at: `rows of arms ${sources.join(', ')}, column ${column}: the highest`,
  locate: (r) => {
    const values = sources.map((source) => num(armRow(r, table, source)?.[column]));
    return values.every((v): v is number => v !== null) ? Math.max(...values) : null;
  },
});

// ---------------------------------------------------------------------------
// The authors' arms (HARNESS.md, "which arm feeds which table cell"; the paper's manifest)

const HAIKU = 'haiku';
const OPUS = 'opus';
const MINI = 'gpt-5.4-mini-2026-03-17';
const SOL = 'gpt-5.6-sol';

type Frontier = typeof HAIKU | typeof OPUS | typeof MINI | typeof SOL;
const FRONTIER: readonly { key: Frontier; name: string }[] = [
  { key: HAIKU, name: 'Haiku 4.5' },
  { key: OPUS, name: 'Opus 4.8' },
  { key: MINI, name: 'GPT-5.4-mini' },
  { key: SOL, name: 'GPT-5.6 Sol' },
];

const economic = (model: string, frame: 'R0' | 'R2', budget: number, charge: number) =>
  `economic_surface_${model}/${frame}/B_${budget}/K_${charge}`;

const RUNGS = ['R0', 'R1', 'R2', 'R3'] as const;
type Rung = (typeof RUNGS)[number];

/** The arm behind each frontier ladder cell's timing measures (first-sight, commitments). */
const LADDER_ARMS: Readonly<Record<Frontier, Readonly<Record<Rung, string>>>> = {
  [HAIKU]: {
    R0: 'urn_haiku_n-announced',
    R1: 'claim_solver_haiku_n-announced',
    R2: economic(HAIKU, 'R2', 3, 0),
    R3: 'arm_a1_announce_n-announced',
  },
  [OPUS]: {
    R0: 'urn_opus_n-announced',
    R1: 'claim_solver_opus_n-announced',
    R2: economic(OPUS, 'R2', 3, 0),
    R3: 'arm_a1_announce_opus_n-announced_canonical-structure_mag100_class-bound-v1',
  },
  [MINI]: {
    R0: economic(MINI, 'R0', 3, 0),
    R1: `claim_solver_${MINI}_n-announced`,
    R2: economic(MINI, 'R2', 3, 0),
    R3: `arm_a1_announce_${MINI}_n-announced_write-budget-v2_class-bound-v1`,
  },
  [SOL]: {
    R0: economic(SOL, 'R0', 3, 0),
    R1: `claim_solver_${SOL}_n-announced`,
    R2: economic(SOL, 'R2', 3, 0),
    R3: `arm_a1_announce_${SOL}_n-announced_write-budget-v2_class-bound-v1`,
  },
};
const OPUS_R3_MAG1000 = 'arm_a1_announce_opus_n-announced_canonical-structure_class-bound-v1';

const QWEN = [
  { key: 'qwen-rl-base-q8:latest', dir: 'qwen-rl-base-q8_latest', name: 'Base' },
  { key: 'qwen-rl-urn-final:latest', dir: 'qwen-rl-urn-final_latest', name: 'Run 1' },
  { key: 'qwen-rl-a2-final:latest', dir: 'qwen-rl-a2-final_latest', name: 'Run 2' },
] as const;
type Qwen = (typeof QWEN)[number];
const [QWEN_BASE, QWEN_RUN1, QWEN_RUN2] = QWEN;

const VOCABULARIES = ['cauldron', 'quiver', 'treasure_chest'] as const;
const qwenArms = (q: Qwen) => ({
  R0: `urn_${q.dir}_n-announced`,
  reskins: VOCABULARIES.map((v) => `urn_${q.dir}_n-announced_vocab-${v}`),
  probe: [`urn_tool_${q.dir}_n-announced`, ...VOCABULARIES.map((v) => `urn_tool_${q.dir}_n-announced_vocab-${v}`)],
  R1: `claim_solver_${q.dir}_n-announced_efr4`,
  R2: `claim_solver_code_${q.dir}_n-announced_efr4`,
  R3: `arm_a1_announce_${q.dir}_n-announced_class-bound-v1_efr4`,
});

// ---------------------------------------------------------------------------
// The registry

const percent = (digits: number): Rounding => ({ kind: 'percent', digits });
const points = (digits: number): Rounding => ({ kind: 'points', digits });
const fixed = (digits: number): Rounding => ({ kind: 'fixed', digits });
const COUNT: Rounding = { kind: 'count' };
const TEXT: Rounding = { kind: 'text' };

const entries: PaperValue[] = [];
const add = (entry: PaperValue) => entries.push(entry);

const ESTIMATE_PARTS = [
  ['', 'estimate'],
  [' low', 'interval low'],
  [' high', 'interval high'],
] as const;
/** An estimate and its interval: three entries. */
function addInterval(
  base: Omit<PaperValue, 'printed' | 'locator' | 'id' | 'where'> & { id: string; where: string },
  printed: readonly [number, number, number],
  locator: ((suffix: string) => Locator) | null,
) {
  ESTIMATE_PARTS.forEach(([suffix, part], i) =>
    add({
      ...base,
      id: `${base.id}${suffix ? `/${suffix.trim()}` : ''}`,
      where: `${base.where} (${part})`,
      printed: printed[i] ?? NaN,
      ...(locator && { locator: locator(suffix) }),
    }),
  );
}

// --- Table 1 (tab:ladder): pooled first-sight per rung, and the failure point -------------------------------------
{
  const printed: Record<Frontier, readonly [number, number, number, number, string]> = {
    [HAIKU]: [28, 33, 99, 100, 'R2'],
    [OPUS]: [4, 0, 92, 99, 'R2'],
    [MINI]: [15, 29, 85, 88, 'R2'],
    [SOL]: [24, 0, 39, 100, 'R3'],
  };
  for (const { key, name } of FRONTIER) {
    const values = printed[key];
    RUNGS.forEach((rung, i) =>
      add({
        id: `tab:ladder/${key}/${rung}`,
        group: 'tab:ladder',
        where: `Table 1 (tab:ladder), row ${name}, column ${rung}`,
        printed: values[i] ?? NaN,
        rounding: percent(0),
        arms: [LADDER_ARMS[key][rung]],
        locator: ladder('framing-ladder', key, rung),
      }),
    );
    add({
      id: `tab:ladder/${key}/failure-point`,
      group: 'tab:ladder',
      where: `Table 1 (tab:ladder), row ${name}, column Failure point`,
      printed: values[4],
      rounding: TEXT,
      arms: RUNGS.map((rung) => LADDER_ARMS[key][rung]),
      locator: ladderText('framing-ladder', key, 'Failure point (suppression)'),
      note: "The column follows B.5's suppression criterion, not the 30-point rule (HARNESS.md): framing-ladder prints both.",
    });
  }
}

// --- tab:frontier-cell: per-cell first-sight with per-arm intervals --------------------------------------------------
{
  const printed: Record<Frontier, readonly (readonly [number, number, number])[]> = {
    [HAIKU]: [
      [27.8, 20.8, 34.7],
      [33.3, 19.4, 48.6],
      [98.6, 95.8, 100.0],
      [100.0, 100.0, 100.0],
    ],
    [OPUS]: [
      [4.2, 0.0, 8.3],
      [0.0, 0.0, 0.0],
      [91.7, 86.1, 97.2],
      [98.6, 95.8, 100.0],
    ],
    [MINI]: [
      [15.3, 5.6, 26.4],
      [29.4, 7.7, 54.5],
      [85.0, 70.2, 96.7],
      [88.0, 76.0, 100.0],
    ],
    [SOL]: [
      [23.6, 12.5, 36.1],
      [0.0, 0.0, 0.0],
      [38.9, 25.0, 52.8],
      [100.0, 100.0, 100.0],
    ],
  };
  for (const { key, name } of FRONTIER)
    RUNGS.forEach((rung, i) => {
      const source = LADDER_ARMS[key][rung];
      addInterval(
        {
          id: `tab:frontier-cell/${key}/${rung}`,
          group: 'tab:frontier-cell',
          where: `Table tab:frontier-cell (D.2), row ${name}, column ${rung}`,
          rounding: percent(1),
          arms: [source],
        },
        printed[key][i] ?? [NaN, NaN, NaN],
        (suffix) => cell(source, `First-sight${suffix}`),
      );
    });
}

// --- tab:frontier-paired: paired within-seed differences of re-pooled first-sight ----------------------------------
const STEPS = [
  ['R0', 'R1'],
  ['R1', 'R2'],
  ['R2', 'R3'],
  ['R0', 'R3'],
] as const;
{
  const printed: Record<Frontier, readonly (readonly [number, number, number])[]> = {
    [HAIKU]: [
      [5.6, -11.1, 23.6],
      [65.3, 51.4, 79.2],
      [1.4, 0.0, 4.2],
      [72.2, 65.3, 79.2],
    ],
    [OPUS]: [
      [-4.2, -8.3, 0.0],
      [91.7, 86.1, 97.2],
      [6.9, 0.0, 13.9],
      [94.4, 88.9, 98.6],
    ],
    [MINI]: [
      [14.1, -10.8, 40.5],
      [55.6, 31.2, 77.1],
      [3.0, -14.3, 22.2],
      [72.7, 57.8, 86.2],
    ],
    [SOL]: [
      [-23.6, -36.1, -12.5],
      [38.9, 25.0, 52.8],
      [61.1, 47.2, 75.0],
      [76.4, 63.9, 87.5],
    ],
  };
  for (const { key, name } of FRONTIER)
    STEPS.forEach(([from, to], i) => {
      const column = `${to}−${from}`;
      addInterval(
        {
          id: `tab:frontier-paired/${key}/${to}-${from}`,
          group: 'tab:frontier-paired',
          where: `Table tab:frontier-paired (D.1), row ${name}, column ${to}−${from}${to === 'R3' && from === 'R0' ? ' (overall)' : ''}`,
          rounding: points(1),
          arms: [LADDER_ARMS[key][from], LADDER_ARMS[key][to]],
        },
        printed[key][i] ?? [NaN, NaN, NaN],
        (suffix) => ladder('paired-ladder-differences', key, `${column}${suffix}`),
      );
    });
}

// --- tab:zero-commit and D.3's paired R2 → R3 changes --------------------------------------------------------------
{
  const printed: Record<Frontier, readonly [number[], number[]]> = {
    [HAIKU]: [
      [0, 0, 0, 0],
      [3.0, 3.0, 3.0, 2.83],
    ],
    [OPUS]: [
      [0, 0, 0, 0],
      [3.0, 3.0, 3.0, 3.0],
    ],
    [MINI]: [
      [0, 17, 4, 13],
      [3.0, 0.71, 2.5, 1.04],
    ],
    [SOL]: [
      [0, 0, 0, 2],
      [3.0, 3.0, 3.0, 2.21],
    ],
  };
  for (const { key, name } of FRONTIER) {
    const [zero, commits] = printed[key];
    RUNGS.forEach((rung, i) => {
      const arms = [LADDER_ARMS[key][rung]];
      add({
        id: `tab:zero-commit/${key}/zero-commit/${rung}`,
        group: 'tab:zero-commit',
        where: `Table tab:zero-commit (D.3), row ${name}, Zero-commit (n/24) column ${rung}`,
        printed: zero[i] ?? NaN,
        rounding: COUNT,
        arms,
        locator: ladderCount('zero-commit', key, `zero-commit ${rung}`),
      });
      add({
        id: `tab:zero-commit/${key}/commits/${rung}`,
        group: 'tab:zero-commit',
        where: `Table tab:zero-commit (D.3), row ${name}, Mean commits / seed column ${rung}`,
        printed: commits[i] ?? NaN,
        rounding: fixed(2),
        arms,
        locator: ladder('zero-commit', key, `commits/seed ${rung}`),
      });
    });
  }
  // D.3's text restates GPT-5.4-mini's row and Sol's two R3 zero-commit seeds.
  const restated: readonly [Frontier, Rung, 'zero-commit' | 'commits', number, string][] = [
    [MINI, 'R1', 'zero-commit', 17, '"17/24 zero-commit"'],
    [MINI, 'R1', 'commits', 0.71, '"0.71 commits per seed"'],
    [MINI, 'R2', 'zero-commit', 4, '"(4/24, 2.50)"'],
    [MINI, 'R2', 'commits', 2.5, '"(4/24, 2.50)"'],
    [MINI, 'R3', 'zero-commit', 13, '"(13/24, 1.04)"'],
    [MINI, 'R3', 'commits', 1.04, '"(13/24, 1.04)"'],
    [SOL, 'R3', 'zero-commit', 2, '"drops only two seeds at R3"'],
  ];
  for (const [key, rung, what, value, quote] of restated)
    add({
      id: `D.3-text/${key}/${what}/${rung}`,
      group: 'tab:zero-commit',
      where: `App. D.3 text, ${quote}`,
      printed: value,
      rounding: what === 'commits' ? fixed(2) : COUNT,
      arms: [LADDER_ARMS[key][rung]],
      restates: `tab:zero-commit/${key}/${what}/${rung}`,
      locator:
        what === 'commits' ? ladder('zero-commit', key, `commits/seed ${rung}`) : ladderCount('zero-commit', key, `zero-commit ${rung}`),
    });
  const paired: readonly [Frontier, string, readonly [number, number, number], readonly [number, number, number]][] = [
    [MINI, 'GPT-5.4-mini', [37.5, 12.5, 62.5], [-1.46, -2.13, -0.75]],
    [SOL, 'GPT-5.6 Sol', [8.3, 0.0, 20.8], [-0.79, -1.21, -0.42]],
  ];
  for (const [key, name, zero, commits] of paired) {
    const arms = [LADDER_ARMS[key].R2, LADDER_ARMS[key].R3];
    addInterval(
      {
        id: `D.3-text/${key}/zero-commit/R3-R2`,
        group: 'tab:zero-commit',
        where: `App. D.3 text, ${name}'s paired R2→R3 change in zero-commit incidence, points`,
        rounding: points(1),
        arms,
      },
      zero,
      (suffix) => ladder('zero-commit', key, `zero-commit R3−R2${suffix}`),
    );
    addInterval(
      {
        id: `D.3-text/${key}/commits/R3-R2`,
        group: 'tab:zero-commit',
        where: `App. D.3 text, ${name}'s paired R2→R3 change in commits per seed`,
        rounding: fixed(2),
        arms,
      },
      commits,
      (suffix) => ladder('zero-commit', key, `commits/seed R3−R2${suffix}`),
    );
  }
}

// --- D.4: magnitude sensitivity (Opus R3 at magnitude 1000 and 100) -------------------------------------------------
{
  const group = 'D.4 magnitude check';
  const mag100 = LADDER_ARMS[OPUS].R3;
  const urn = LADDER_ARMS[OPUS].R0;
  add({
    id: 'D.4/opus-1000/first-sight-builds',
    group,
    where: 'App. D.4, "Opus makes 72/72 R3 builds at first sight" (magnitude 1000)',
    printed: '72/72',
    rounding: TEXT,
    arms: [OPUS_R3_MAG1000],
    locator: armText('r3-builds', OPUS_R3_MAG1000, 'First-sight builds'),
  });
  add({
    id: 'D.4/opus-1000/first-sight',
    group,
    where: 'App. D.4, "(100%)" first sight at magnitude 1000',
    printed: 100,
    rounding: percent(0),
    arms: [OPUS_R3_MAG1000],
    locator: cell(OPUS_R3_MAG1000, 'First-sight'),
  });
  add({
    id: 'D.4/opus-1000/lateness',
    group,
    where: 'App. D.4, "zero mean lateness" at magnitude 1000',
    printed: 0,
    rounding: fixed(3),
    arms: [OPUS_R3_MAG1000],
    locator: cell(OPUS_R3_MAG1000, 'Lateness'),
  });
  addInterval(
    {
      id: 'D.4/opus-1000/R3-R0',
      group,
      where: 'App. D.4, magnitude-1000 R3-minus-R0 paired difference, points',
      rounding: points(1),
      arms: [urn, OPUS_R3_MAG1000],
    },
    [95.8, 91.7, 100.0],
    (suffix) => ladder('paired-ladder-differences', OPUS, `R3−R0${suffix}`, 1000),
  );
  add({
    id: 'D.4/opus-100/first-sight',
    group,
    where: 'App. D.4, "98.6% first sight" at magnitude 100',
    printed: 98.6,
    rounding: percent(1),
    arms: [mag100],
    restates: 'tab:frontier-cell/opus/R3',
    locator: cell(mag100, 'First-sight'),
  });
  add({
    id: 'D.4/opus-100/first-sight-builds',
    group,
    where: 'App. D.4, "71/72 builds" at magnitude 100',
    printed: '71/72',
    rounding: TEXT,
    arms: [mag100],
    locator: armText('r3-builds', mag100, 'First-sight builds'),
  });
  add({
    id: 'D.4/opus-100/lateness',
    group,
    where: 'App. D.4, "mean lateness 0.014" at magnitude 100',
    printed: 0.014,
    rounding: fixed(3),
    arms: [mag100],
    locator: cell(mag100, 'Lateness'),
  });
  addInterval(
    {
      id: 'D.4/opus-100/R3-R0',
      group,
      where: 'App. D.4, magnitude-100 paired difference, points',
      rounding: points(1),
      arms: [urn, mag100],
      restates: 'tab:frontier-paired/opus/R3-R0',
    },
    [94.4, 88.9, 98.6],
    (suffix) => ladder('paired-ladder-differences', OPUS, `R3−R0${suffix}`),
  );
  for (const [source, magnitude] of [
    [mag100, 100],
    [OPUS_R3_MAG1000, 1000],
  ] as const)
    add({
      id: `D.4/opus-${magnitude}/josephus`,
      group,
      where: `App. D.4, "Josephus accounts for seven of the 72 builds in both arms, all at first sight" (magnitude ${magnitude}): builds (at first sight)`,
      printed: '7 (7)',
      rounding: TEXT,
      arms: [source],
      locator: armText('r3-family-builds', source, 'josephus'),
    });
  add({
    id: 'D.4/opus-100/raw-answers',
    group,
    where: 'App. D.4, "Opus submitted a raw, script-free answer to an unbuilt class only once"',
    printed: 1,
    rounding: COUNT,
    arms: [mag100],
    locator: arm('r3-builds', mag100, 'Raw answers'),
    note: 'Our Raw answers counts every submission on a problem where no script ran; the paper speaks of unbuilt classes (the publication protocol stops at the third write, so the two coincide unless a built class was answered by hand).',
  });
  add({
    id: 'D.4/opus-100/raw-accuracy',
    group,
    where: 'App. D.4, "that attempt was incorrect": raw accuracy',
    printed: 0,
    rounding: percent(0),
    arms: [mag100],
    locator: arm('r3-builds', mag100, 'Raw accuracy'),
  });
}

// --- tab:econ-full: the economic surface (Haiku) ----------------------------------------------------------------------
const ECON_ROWS: readonly ['R0' | 'R2', number, number, number, number, number, number][] = [
  ['R0', 1, 0, 14.1, 10.6, 19.5, 8.9],
  ['R0', 1, 10, 1.7, 3.1, 9.5, 6.4],
  ['R0', 1, 24, 0.9, -10.5, 0.1, 10.6],
  ['R0', 3, 0, 22.7, 37.5, 49.7, 12.1],
  ['R0', 3, 10, 4.9, 10.1, 19.7, 9.6],
  ['R0', 3, 24, 5.7, -33.4, 0.1, 33.5],
  ['R0', 5, 0, 34.8, 51.0, 55.9, 4.9],
  ['R0', 5, 10, 16.5, 1.6, 19.7, 18.1],
  ['R0', 5, 24, 5.3, -61.8, 0.1, 61.8],
  ['R2', 1, 0, 100.0, 10.0, 19.5, 9.5],
  ['R2', 1, 10, 100.0, 0.0, 9.5, 9.5],
  ['R2', 1, 24, 85.2, -14.1, 0.1, 14.2],
  ['R2', 3, 0, 97.3, 32.7, 49.7, 17.0],
  ['R2', 3, 10, 100.0, 2.9, 19.7, 16.8],
  ['R2', 3, 24, 98.6, -38.5, 0.1, 38.6],
  ['R2', 5, 0, 100.0, 51.5, 55.9, 4.4],
  ['R2', 5, 10, 100.0, 1.5, 19.7, 18.2],
  ['R2', 5, 24, 99.2, -68.5, 0.1, 68.6],
];
const DISPLAYED_ECON = ECON_ROWS.map(([frame, budget, charge]) => economic(HAIKU, frame, budget, charge));
{
  for (const [frame, budget, charge, hazard, net, optimum, regret] of ECON_ROWS) {
    const source = economic(HAIKU, frame, budget, charge);
    const columns: readonly [string, string, number, Rounding][] = [
      ['Hazard', 'Hazard (%)', hazard, percent(1)],
      ['Net', 'Net', net, fixed(1)],
      ['Optimum', 'Optimum', optimum, fixed(1)],
      ['Regret', 'Regret', regret, fixed(1)],
    ];
    for (const [column, printedColumn, value, rounding] of columns)
      add({
        id: `tab:econ-full/${frame}/B${budget}/K${charge}/${column}`,
        group: 'tab:econ-full',
        where: `Table tab:econ-full (App. E), row ${frame} (${budget},${charge}), column ${printedColumn}`,
        printed: value,
        rounding,
        arms: [source],
        locator: arm('economic-surface', source, column),
      });
  }
}

// --- App. E's text (and Figure 5's caption) ---------------------------------------------------------------------------
{
  const group = 'App. E text';
  const interactions: readonly [number, readonly [number, number, number]][] = [
    [1, [30.8, 6.7, 54.2]],
    [3, [20.2, 10.3, 30.3]],
    [5, [29.9, 18.5, 42.0]],
  ];
  for (const [budget, printed] of interactions)
    addInterval(
      {
        id: `E-text/interaction/B${budget}`,
        group,
        where: `App. E text, seed-paired endpoint interaction (K = 0 → 24) for B = ${budget}, points`,
        rounding: points(1),
        arms: [0, 24].flatMap((charge) => (['R0', 'R2'] as const).map((frame) => economic(HAIKU, frame, budget, charge))),
      },
      printed,
      (suffix) => ({
        table: 'economic-interaction',
        at: `row haiku, B ${budget}, column Interaction${suffix}`,
        locate: (r) =>
          num(rowsOf(r, 'economic-interaction').find((row) => row.Model === HAIKU && row.B === String(budget))?.[`Interaction${suffix}`]),
      }),
    );
  for (const [charge, value] of [
    [0, 3.0],
    [24, 0.04],
  ] as const)
    add({
      id: `E-text/optimum-commits/B3/K${charge}`,
      group,
      where: `App. E text, "the hindsight optimum builds 3.00 classes per seed at K=0 and 0.04 at K=24 (at B=3)": K = ${charge}`,
      printed: value,
      rounding: fixed(2),
      arms: [economic(HAIKU, 'R0', 3, charge)],
      locator: arm('economic-surface', economic(HAIKU, 'R0', 3, charge), 'Optimum commits/seed'),
    });
  add({
    id: 'E-text/optimum-lateness',
    group,
    where: 'App. E text, "its build-lateness stays 0 throughout" (the hindsight optimum)',
    printed: 0,
    rounding: fixed(2),
    arms: DISPLAYED_ECON,
    locator: armMax('economic-surface', DISPLAYED_ECON, 'Optimum lateness'),
  });
  add({
    id: 'E-text/optimum-hazard/B3/K24',
    group,
    where:
      'App. E (Design) and Figure 5 caption, "the exact hindsight optimum commits on only about 1% of eligible first-sight turns" at K = 24 (read at B = 3)',
    printed: 1,
    rounding: percent(0),
    arms: [economic(HAIKU, 'R0', 3, 24)],
    locator: arm('economic-surface', economic(HAIKU, 'R0', 3, 24), 'Optimum hazard'),
    note: '"about 1%": compared at integer percent; the paper names no B, B = 3 is the budget of the sentence beside it.',
  });
  for (const [frame, value] of [
    ['R2', 1.2],
    ['R0', 4.5],
  ] as const)
    add({
      id: `E-text/regret-se/${frame}/B5/K24`,
      group,
      where: `App. E text, regret "68.6 ± 1.2 (R2) versus 61.8 ± 4.5 (R0) at K=24" (B = 5): ${frame}'s standard error`,
      printed: value,
      rounding: fixed(1),
      arms: [economic(HAIKU, frame, 5, 24)],
      locator: arm('economic-surface', economic(HAIKU, frame, 5, 24), 'Regret SE'),
    });
  for (const [frame, charge, value] of [
    ['R2', 24, 68.6],
    ['R0', 24, 61.8],
    ['R2', 0, 4.4],
    ['R0', 0, 4.9],
  ] as const)
    add({
      id: `E-text/regret/${frame}/B5/K${charge}`,
      group,
      where: `App. E text, B = 5 regret of ${frame} at K = ${charge}`,
      printed: value,
      rounding: fixed(1),
      arms: [economic(HAIKU, frame, 5, charge)],
      restates: `tab:econ-full/${frame}/B5/K${charge}/Regret`,
      locator: arm('economic-surface', economic(HAIKU, frame, 5, charge), 'Regret'),
    });
  const hazardRange = (id: string, where: string, printed: string, sources: readonly string[]) =>
    add({
      id,
      group,
      where,
      printed,
      rounding: TEXT,
      arms: sources,
      locator: armRange('economic-surface', sources, 'Hazard', percent(0)),
    });
  hazardRange(
    'E-text/R0-hazard-range/K0',
    'App. E text, "R0\'s first-sight hazard falls from 14–35% at K=0" (over B)',
    '14–35',
    [1, 3, 5].map((b) => economic(HAIKU, 'R0', b, 0)),
  );
  hazardRange(
    'E-text/R0-hazard-range/K24',
    'App. E text, "… to 1–6% at K=24" (over B)',
    '1–6',
    [1, 3, 5].map((b) => economic(HAIKU, 'R0', b, 24)),
  );
  hazardRange(
    'E-text/R2-hazard-range',
    'App. E text, "R2 holds at 85–100% first sight across the surface" (the displayed cells)',
    '85–100',
    DISPLAYED_ECON.filter((source) => source.includes('/R2/')),
  );
  const sessions = (charges: readonly number[]) =>
    [1, 3, 5].flatMap((b) => charges.flatMap((k) => (['R0', 'R2'] as const).map((frame) => economic(HAIKU, frame, b, k))));
  for (const [charges, value, quote] of [
    [[0, 20, 24], 432, 'the K=0,20,24 grid contains 432 sessions'],
    [[10], 144, 'the added K=10 selective grid 144'],
  ] as const) {
    const sources = sessions(charges);
    add({
      id: `E-text/sessions/K${charges.join('-')}`,
      group,
      where: `App. E (Design), "${quote}"`,
      printed: value,
      rounding: COUNT,
      arms: sources,
      locator: {
        table: 'cells',
        at: `rows Source = economic_surface_haiku/R{0,2}/B_{1,3,5}/K_{${charges.join(',')}}, sum of Seeds`,
        locate: (r) => {
          const seeds = sources.map((source) => num(cellRow(r, source)?.Seeds));
          return seeds.every((s): s is number => s !== null) ? seeds.reduce((a, b) => a + b, 0) : null;
        },
      },
    });
  }
  add({
    id: 'E-text/zero-commit',
    group,
    where: 'App. E text, "Zero-commit incidence is 0% in every displayed cell" (the largest over the 18 cells)',
    printed: 0,
    rounding: percent(0),
    arms: DISPLAYED_ECON,
    locator: {
      table: 'cells',
      at: 'rows of the 18 displayed economic cells, largest Zero-commit seeds / Seeds',
      locate: (r) => {
        const shares = DISPLAYED_ECON.map((source) => {
          const row = cellRow(r, source);
          const zero = num(row?.['Zero-commit seeds']);
          const seeds = num(row?.Seeds);
          return zero === null || !seeds ? null : zero / seeds;
        });
        return shares.every((s): s is number => s !== null) ? Math.max(...shares) : null;
      },
    },
  });
}

// --- Main text --------------------------------------------------------------------------------------------------------
{
  const group = 'main text';
  add({
    id: 'main/qwen-R0-from',
    group,
    where: 'Sec. 4.4, "R0 first-sight commitment … drops from 74%" (base)',
    printed: 74,
    rounding: percent(0),
    arms: [qwenArms(QWEN_BASE).R0],
    restates: `tab:rl-transfer-full/base/R0/rate`,
    locator: cell(qwenArms(QWEN_BASE).R0, 'First-sight'),
  });
  add({
    id: 'main/qwen-R0-to',
    group,
    where: 'Sec. 4.4, "… to 6%" (Run 2)',
    printed: 6,
    rounding: percent(0),
    arms: [qwenArms(QWEN_RUN2).R0],
    restates: `tab:rl-transfer-full/run-2/R0/rate`,
    locator: cell(qwenArms(QWEN_RUN2).R0, 'First-sight'),
  });
  add({
    id: 'main/qwen-run2-R0-score',
    group,
    where: 'Sec. 4.4, "an R0 score comparable to a strong frontier model (79.6%" (Run 2)',
    printed: 79.6,
    rounding: percent(1),
    arms: [qwenArms(QWEN_RUN2).R0],
    restates: 'tab:score/run-2/R0',
    locator: ladder('score', QWEN_RUN2.key, 'R0'),
  });
  add({
    id: 'main/sol-R0-score',
    group,
    where: 'Sec. 4.4, "versus GPT-5.6 Sol\'s 78.3% from Figure 3" (Sol\'s R0 Score)',
    printed: 78.3,
    rounding: percent(1),
    arms: [LADDER_ARMS[SOL].R0],
    locator: ladder('score', SOL, 'R0'),
  });
  add({
    id: 'main/stream-counts/trap',
    group,
    where: 'Sec. 3.2, "hots recur roughly 13–23 times and traps 1–6 times": trap classes\' occurrences per stream',
    printed: '1–6',
    rounding: TEXT,
    arms: [LADDER_ARMS[HAIKU].R0],
    locator: {
      table: 'streams',
      at: 'row Role = trap, columns Occurrences min – Occurrences max',
      locate: (r) => {
        const row = rowsOf(r, 'streams').find((x) => x.Role === 'trap');
        return row ? `${row['Occurrences min']}–${row['Occurrences max']}` : null;
      },
    },
  });
}

// --- tab:score (Qwen Score per rung) ---------------------------------------------------------------------------------
const SCORE: readonly [Qwen, readonly [number, number, number]][] = [
  [QWEN_BASE, [74.8, 49.2, 61.2]],
  [QWEN_RUN2, [79.6, 34.8, 41.7]],
];
const slug = (q: Qwen) => q.name.toLowerCase().replace(' ', '-');
{
  for (const [q, values] of SCORE) {
    const arms = qwenArms(q);
    (['R0', 'R1', 'R2'] as const).forEach((rung, i) =>
      add({
        id: `tab:score/${slug(q)}/${rung}`,
        group: 'tab:score',
        where: `Table tab:score, row Qwen-14B ${q === QWEN_BASE ? 'base' : 'post-trained'} (q8), column ${rung} score`,
        printed: values[i] ?? NaN,
        rounding: percent(1),
        arms: [arms[rung]],
        locator: ladder('score', q.key, rung),
      }),
    );
  }
}

// --- tab:rl-transfer-full ----------------------------------------------------------------------------------------------
const TRANSFER_PANELS = [
  ['R0', 'Abstract urn (R0)'],
  ['reskins', 'Lexical reskins (pooled)'],
  ['probe', 'Keep/pass tool call'],
  ['R1', 'Declarative claim (R1)'],
  ['R2', 'Code claim (R2)'],
  ['R3', 'Script (R3, class-bound)'],
] as const;
type Panel = (typeof TRANSFER_PANELS)[number][0];
/** Each panel's row name in our transfer tables (the probe is pooled when several vocabularies ran). */
const PAIRED_PANEL_NAMES: Readonly<Record<Panel, readonly string[]>> = {
  R0: ['R0'],
  reskins: ['reskins (pooled)'],
  probe: ['probe (pooled)', 'probe'],
  R1: ['R1'],
  R2: ['R2'],
  R3: ['R3'],
};
const panelArms = (q: Qwen, panel: Panel): readonly string[] => {
  const arms = qwenArms(q);
  return panel === 'reskins' || panel === 'probe' ? arms[panel] : [arms[panel]];
};
{
  const group = 'tab:rl-transfer-full';
  const rates: Record<Qwen['name'], readonly (readonly [number, number])[]> = {
    Base: [
      [74, 0.4],
      [65, 0.59],
      [87, 0.36],
      [62, 1.49],
      [76, 1.24],
      [91, 0.11],
    ],
    'Run 1': [
      [35, 0.75],
      [29, 0.84],
      [50, 1.15],
      [57, 1.68],
      [73, 1.03],
      [94, 0.06],
    ],
    'Run 2': [
      [6, 1.51],
      [3, 1.46],
      [33, 1.56],
      [69, 0.95],
      [67, 0.91],
      [95, 0.06],
    ],
  };
  const deltas: Record<'Run 1' | 'Run 2', readonly (readonly [number, number, number])[]> = {
    'Run 1': [
      [-38.9, -58.3, -19.4],
      [-36.1, -48.0, -23.2],
      [-37.2, -46.2, -29.0],
      [-4.7, -28.3, 19.1],
      [-2.7, -16.0, 10.8],
      [3.4, -5.2, 12.0],
    ],
    'Run 2': [
      [-68.1, -81.9, -51.4],
      [-62.3, -71.5, -52.0],
      [-54.1, -64.1, -44.2],
      [7.2, -17.0, 30.0],
      [-8.4, -22.8, 6.1],
      [3.6, -6.0, 12.7],
    ],
  };
  for (const q of QWEN) {
    TRANSFER_PANELS.forEach(([panel, printedPanel], i) => {
      const [rate, lateness] = rates[q.name][i] ?? [NaN, NaN];
      const arms = panelArms(q, panel);
      const pooled = panel === 'reskins' || panel === 'probe';
      const pooledName = panel === 'reskins' ? 'reskins (pooled)' : 'probe (pooled)';
      add({
        id: `${group}/${slug(q)}/${panel}/rate`,
        group,
        where: `Table tab:rl-transfer-full, row ${printedPanel}, column ${q.name}: first-sight`,
        printed: rate,
        rounding: percent(0),
        arms,
        locator: pooled ? transferRate(q.key, pooledName) : cell(arms[0] ?? '', 'First-sight'),
        ...(pooled && { note: 'Pooled per seed: read from the transfer table, which prints the rate to one decimal.' }),
      });
      const misprint =
        q === QWEN_RUN2 && panel === 'R3'
          ? {
              arithmetic:
                "3 of Run 2's 55 R3 builds come one occurrence late (52/55 at first sight, F.6): mean lateness 3/55 = 0.0545, which rounds to 0.05, not 0.06",
              correct: '0.05',
            }
          : undefined;
      add({
        id: `${group}/${slug(q)}/${panel}/lateness`,
        group,
        where: `Table tab:rl-transfer-full, row ${printedPanel}, column ${q.name}: mean lateness in parentheses`,
        printed: lateness,
        rounding: fixed(2),
        arms,
        locator: pooled ? transferLateness(q.key, pooledName) : cell(arms[0] ?? '', 'Lateness'),
        ...(misprint && { misprint }),
      });
      if (q.name === 'Base') return;
      const label = q.name === 'Run 1' ? 'Δ1' : 'Δ2';
      addInterval(
        {
          id: `${group}/${slug(q)}/${panel}/delta`,
          group,
          where: `Table tab:rl-transfer-full, row ${printedPanel}, column ${label} [95% CI], points`,
          rounding: points(1),
          arms: [...panelArms(QWEN_BASE, panel), ...arms],
        },
        deltas[q.name][i] ?? [NaN, NaN, NaN],
        pairedDelta(q.key, QWEN_BASE.key, PAIRED_PANEL_NAMES[panel]),
      );
    });
  }
  const keeps: Record<Qwen['name'], readonly [readonly [number, string], readonly [number, string]]> = {
    Base: [
      [58, '53/91'],
      [57, '12/21'],
    ],
    'Run 1': [
      [23, '25/109'],
      [83, '40/48'],
    ],
    'Run 2': [
      [3, '4/131'],
      [60, '48/80'],
    ],
  };
  for (const q of QWEN) {
    const urn = qwenArms(q).R0;
    ([1, 2] as const).forEach((occurrence) => {
      const [rate, count] = keeps[q.name][occurrence - 1] ?? [NaN, ''];
      add({
        id: `${group}/${slug(q)}/keep-occurrence-${occurrence}/rate`,
        group,
        where: `Table tab:rl-transfer-full, row P(keep), occurrence ${occurrence} (R0), column ${q.name}: rate`,
        printed: rate,
        rounding: percent(0),
        arms: [urn],
        locator: arm('cell-diagnostics', urn, occurrence === 1 ? 'P(keep | 1st)' : 'P(keep | 2nd)'),
      });
      add({
        id: `${group}/${slug(q)}/keep-occurrence-${occurrence}/count`,
        group,
        where: `Table tab:rl-transfer-full, row P(keep), occurrence ${occurrence} (R0), column ${q.name}: keep count`,
        printed: count,
        rounding: TEXT,
        arms: [urn],
        locator: transferParen(q.key, `P(keep), occurrence ${occurrence} (R0)`),
      });
    });
  }
  const items: Record<Qwen['name'], number> = { Base: 37.2, 'Run 1': 39.9, 'Run 2': 39.5 };
  for (const q of QWEN) {
    const urn = qwenArms(q).R0;
    add({
      id: `${group}/${slug(q)}/items`,
      group,
      where: `Table tab:rl-transfer-full, row Items/stream (R0), column ${q.name}`,
      printed: items[q.name],
      rounding: fixed(1),
      arms: [urn],
      locator: cell(urn, 'Items/stream'),
    });
    if (q.name === 'Base') continue;
    addInterval(
      {
        id: `${group}/${slug(q)}/items/delta`,
        group,
        where: `Table tab:rl-transfer-full, row Items/stream (R0), column ${q.name === 'Run 1' ? 'Δ1' : 'Δ2'} [95% CI], items`,
        rounding: fixed(1),
        arms: [qwenArms(QWEN_BASE).R0, urn],
      },
      q.name === 'Run 1' ? [2.8, -1.8, 7.1] : [2.4, -2.7, 7.5],
      pairedItemsDelta(q.key, QWEN_BASE.key),
    );
  }
}

// --- F.4's text: per-vocabulary rates ----------------------------------------------------------------------------------
{
  const group = 'F.4 text';
  const reskinRanges: readonly [Qwen, string][] = [
    [QWEN_BASE, '57–79'],
    [QWEN_RUN1, '18–36'],
    [QWEN_RUN2, '1–6'],
  ];
  for (const [q, range] of reskinRanges)
    add({
      id: `F.4/${slug(q)}/reskin-range`,
      group,
      where: `App. F.4 text, "Per-vocabulary reskin first-sight rates span 57–79% (base), 18–36% (Run 1), and 1–6% (Run 2)": ${q.name}`,
      printed: range,
      rounding: TEXT,
      arms: qwenArms(q).reskins,
      locator: cellRange(qwenArms(q).reskins, 'First-sight', percent(0)),
    });
  const reskinPanels = ['R0 · cauldron', 'R0 · quiver', 'R0 · chest'];
  addInterval(
    {
      id: 'F.4/run-1/quiver/delta',
      group,
      where: 'App. F.4 text, "worst case Run 1 quiver, Δ1 = −23.6 [−44.4, −2.8]"',
      rounding: points(1),
      arms: [`urn_${QWEN_BASE.dir}_n-announced_vocab-quiver`, `urn_${QWEN_RUN1.dir}_n-announced_vocab-quiver`],
    },
    [-23.6, -44.4, -2.8],
    pairedDelta(QWEN_RUN1.key, QWEN_BASE.key, ['R0 · quiver']),
  );
  for (const [end, value] of [
    ['least', -50.9],
    ['most', -77.0],
  ] as const)
    add({
      id: `F.4/run-2/reskin-delta-${end}`,
      group,
      where: `App. F.4 text, "Run 2 ranges from −50.9 to −77.0" (per-vocabulary Δ2): the ${end} negative`,
      printed: value,
      rounding: points(1),
      arms: [...qwenArms(QWEN_BASE).reskins, ...qwenArms(QWEN_RUN2).reskins],
      // The least negative is the highest difference, the most negative the lowest.
      locator: pairedDeltaExtreme(QWEN_RUN2.key, QWEN_BASE.key, reskinPanels, end === 'least' ? 'max' : 'min'),
    });
  const probeRanges: readonly [Qwen, string, string][] = [
    [QWEN_RUN1, '49–51', '"uniform across vocabularies for Run 1 (49–51% first sight'],
    [QWEN_BASE, '83–93', '"versus 83–93% for base)"'],
    [QWEN_RUN2, '24–43', '"wider-spread for Run 2 (24–43%"'],
  ];
  for (const [q, range, quote] of probeRanges)
    add({
      id: `F.4/${slug(q)}/probe-range`,
      group,
      where: `App. F.4 text, tool-call transfer per vocabulary, ${quote}`,
      printed: range,
      rounding: TEXT,
      arms: qwenArms(q).probe,
      locator: cellRange(qwenArms(q).probe, 'First-sight', percent(0)),
      note: 'Over the four probe vocabularies (the plain ball probe and the three reskinned ones).',
    });
  add({
    id: 'F.4/run-2/probe-pooled',
    group,
    where: 'App. F.4 text, "pooled 33%" (Run 2 probe)',
    printed: 33,
    rounding: percent(0),
    arms: qwenArms(QWEN_RUN2).probe,
    restates: 'tab:rl-transfer-full/run-2/probe/rate',
    locator: transferRate(QWEN_RUN2.key, 'probe (pooled)'),
  });
}

// --- tab:qwen-score-paired ---------------------------------------------------------------------------------------------
{
  const group = 'tab:qwen-score-paired';
  const deltas: readonly (readonly [number, number, number])[] = [
    [4.8, -5.6, 14.4],
    [-14.4, -28.8, 0.3],
    [-19.5, -31.1, -7.4],
  ];
  (['R0', 'R1', 'R2'] as const).forEach((rung, i) => {
    for (const [q, values] of SCORE)
      add({
        id: `${group}/${slug(q)}/${rung}`,
        group,
        where: `Table tab:qwen-score-paired, row ${rung}, column ${q === QWEN_BASE ? 'Base' : 'Post-trained'}`,
        printed: values[i] ?? NaN,
        rounding: percent(1),
        arms: [qwenArms(q)[rung]],
        restates: `tab:score/${slug(q)}/${rung}`,
        locator: ladder('score', q.key, rung),
      });
    addInterval(
      {
        id: `${group}/${rung}/delta`,
        group,
        where: `Table tab:qwen-score-paired, row ${rung}, column Δ (post − base) [95% CI], points`,
        rounding: points(1),
        arms: [qwenArms(QWEN_BASE)[rung], qwenArms(QWEN_RUN2)[rung]],
      },
      deltas[i] ?? [NaN, NaN, NaN],
      pairedDelta(QWEN_RUN2.key, QWEN_BASE.key, [`Score (${rung})`]),
    );
  });
}

// --- F.5: channel validity -----------------------------------------------------------------------------------------------
{
  const group = 'F.5 validity';
  const per = <T>(values: readonly [T, T, T]) => QWEN.map((q, i) => [q, values[i] as T] as const);
  const unresolvedPooled = (q: Qwen, panel: 'reskins (pooled)' | 'probe (pooled)'): Locator => transferRate(q.key, `Unresolved (${panel})`);
  for (const [q, value] of per([0, 0, 0]))
    add({
      id: `F.5/${slug(q)}/unresolved/R0`,
      group,
      where: `App. F.5, unresolved turns "absent on the free-text urn" (${q.name})`,
      printed: value,
      rounding: percent(0),
      arms: [qwenArms(q).R0],
      locator: cell(qwenArms(q).R0, 'Unresolved'),
    });
  for (const [q, value] of per([0, 0, 0]))
    add({
      id: `F.5/${slug(q)}/unresolved/reskins`,
      group,
      where: `App. F.5, unresolved turns "absent on … the reskins" (${q.name}, pooled)`,
      printed: value,
      rounding: percent(0),
      arms: qwenArms(q).reskins,
      locator: unresolvedPooled(q, 'reskins (pooled)'),
    });
  for (const [q, value] of per([66, 72, 76]))
    add({
      id: `F.5/${slug(q)}/unresolved/probe`,
      group,
      where: `App. F.5, "reach 66/72/76% (base/Run 1/Run 2) on the keep/pass tool-call probe": ${q.name}`,
      printed: value,
      rounding: percent(0),
      arms: qwenArms(q).probe,
      locator: unresolvedPooled(q, 'probe (pooled)'),
    });
  for (const [rung, integers, decimals] of [
    ['R1', [18, 31, 15], [17.5, 30.5, 15.0]],
    ['R2', [46, 64, 73], [46.4, 63.7, 73.0]],
  ] as const) {
    for (const [q, value] of per(integers))
      add({
        id: `F.5/${slug(q)}/unresolved/${rung}`,
        group,
        where: `App. F.5, "remain at 18/31/15% at R1 and 46/64/73% at R2 after four retries": ${q.name} ${rung}`,
        printed: value,
        rounding: percent(0),
        arms: [qwenArms(q)[rung]],
        locator: cell(qwenArms(q)[rung], 'Unresolved'),
      });
    for (const [q, value] of per(decimals))
      add({
        id: `F.5/${slug(q)}/unresolved/${rung}/decimal`,
        group,
        where: `App. F.5, ${rung === 'R2' ? '"base-q8 resolves 186/347 decisions (46.4% unresolved), RL-final 146/402 (63.7%), and Run 2 187/692 (73.0%)"' : '"the R1 arms exceed it more modestly (17.5%, 30.5%, and 15.0% unresolved)"'}: ${q.name}`,
        printed: value,
        rounding: percent(1),
        arms: [qwenArms(q)[rung]],
        locator: cell(qwenArms(q)[rung], 'Unresolved'),
      });
  }
  for (const [q, value] of per(['186/347', '146/402', '187/692']))
    add({
      id: `F.5/${slug(q)}/resolved/R2`,
      group,
      where: `App. F.5, R2 decisions resolved of those reached: ${q.name}`,
      printed: value,
      rounding: TEXT,
      arms: [qwenArms(q).R2],
      locator: cellText(qwenArms(q).R2, 'Resolved turns'),
    });
  for (const [q, value] of per([0, 0, 0]))
    add({
      id: `F.5/${slug(q)}/unresolved/R3`,
      group,
      where: `App. F.5, unresolved turns "fully eliminated by retries at R3" (${q.name})`,
      printed: value,
      rounding: percent(0),
      arms: [qwenArms(q).R3],
      locator: cell(qwenArms(q).R3, 'Unresolved'),
    });
  for (const [q, value] of per([2.29, 2.33, 1.75]))
    add({
      id: `F.5/${slug(q)}/claims/R1`,
      group,
      where: `App. F.5, "At R1 … claims/seed 2.29/2.33/1.75": ${q.name}`,
      printed: value,
      rounding: fixed(2),
      arms: [qwenArms(q).R1],
      locator: cell(qwenArms(q).R1, 'Commits/seed'),
    });
  for (const [q, value] of per([3, 3, 7]))
    add({
      id: `F.5/${slug(q)}/zero-claim/R1`,
      group,
      where: `App. F.5, "zero-claim seeds 3/3/7 of 24": ${q.name}`,
      printed: value,
      rounding: COUNT,
      arms: [qwenArms(q).R1],
      locator: cell(qwenArms(q).R1, 'Zero-commit seeds'),
    });
  for (const [q, value] of per([22, 17, 14]))
    add({
      id: `F.5/${slug(q)}/full-budget/R2`,
      group,
      where: `App. F.5, "22/24 base-q8, 17/24 RL-final, and 14/24 Run-2 seeds place all 3 claims" (R2): ${q.name}`,
      printed: value,
      rounding: COUNT,
      arms: [qwenArms(q).R2],
      locator: cell(qwenArms(q).R2, 'Full-budget seeds'),
    });
  for (const [q, value] of per([2, 7, 10]))
    add({
      id: `F.5/${slug(q)}/short-of-budget/R2`,
      group,
      where: `App. F.5, "2/24 base-q8 versus 7/24 RL-final and 10/24 Run-2 seeds never place their third claim" (R2): ${q.name}`,
      printed: value,
      rounding: COUNT,
      arms: [qwenArms(q).R2],
      locator: {
        table: 'cells',
        at: `row Source = ${qwenArms(q).R2}, Seeds − Full-budget seeds`,
        locate: (r) => {
          const row = cellRow(r, qwenArms(q).R2);
          const seeds = num(row?.Seeds);
          const full = num(row?.['Full-budget seeds']);
          return seeds === null || full === null ? null : seeds - full;
        },
      },
    });
  for (const [q, value] of per([61.2, 61.2, 41.7]))
    add({
      id: `F.5/${slug(q)}/score/R2`,
      group,
      where: `App. F.5, "Score 61.2% for base and RL-final …; 41.7% for Run 2": ${q.name}`,
      printed: value,
      rounding: percent(1),
      arms: [qwenArms(q).R2],
      ...(q !== QWEN_RUN1 && { restates: `tab:score/${slug(q)}/R2` }),
      locator: ladder('score', q.key, 'R2'),
    });
  for (const [q, value] of per([729, 730, 497]))
    add({
      id: `F.5/${slug(q)}/collected/R2`,
      group,
      where: `App. F.5, "collected 729 and 730 of 1192; … Run 2, collected 497" (R2): ${q.name}`,
      printed: value,
      rounding: COUNT,
      arms: [qwenArms(q).R2],
      locator: cell(qwenArms(q).R2, 'Collected'),
    });
  add({
    id: 'F.5/optimum/R2',
    group,
    where: 'App. F.5, "of 1192": the summed hindsight optimum over the 24 seeds (R2, base)',
    printed: 1192,
    rounding: COUNT,
    arms: [qwenArms(QWEN_BASE).R2],
    locator: cell(qwenArms(QWEN_BASE).R2, 'Optimum'),
  });
  add({
    id: 'F.5/run-2/unresolved/R2/caption',
    group,
    where: 'Table tab:qwen-score-paired caption, "Run 2 leaves 73% of R2 decision turns unresolved"',
    printed: 73,
    rounding: percent(0),
    arms: [qwenArms(QWEN_RUN2).R2],
    restates: 'F.5/run-2/unresolved/R2',
    locator: cell(qwenArms(QWEN_RUN2).R2, 'Unresolved'),
  });
  add({
    id: 'F.5/frontier-score-panel/malformed-unknown',
    group,
    where: 'App. F.5, "zero malformed or unknown calls for every other model in the Score panel" (Figure 3: the frontier R0 and R2 arms)',
    printed: 0,
    rounding: COUNT,
    arms: FRONTIER.flatMap(({ key }) => [LADDER_ARMS[key].R0, LADDER_ARMS[key].R2]),
    locator: {
      table: 'cells',
      at: 'rows of the frontier R0 and R2 arms, columns Malformed calls + Unknown calls, summed',
      locate: (r) => {
        let total = 0;
        for (const source of FRONTIER.flatMap(({ key }) => [LADDER_ARMS[key].R0, LADDER_ARMS[key].R2]))
          for (const column of ['Malformed calls', 'Unknown calls']) {
            const value = num(cellRow(r, source)?.[column]);
            if (value === null) return null;
            total += value;
          }
        return total;
      },
    },
  });
}

// --- F.6: R3 commitment-volume diagnostics (Qwen) ----------------------------------------------------------------------
{
  const group = 'F.6 R3 diagnostics';
  const per = <T>(values: readonly [T, T, T]) => QWEN.map((q, i) => [q, values[i] as T] as const);
  for (const [q, value] of per(['50/55', '50/53', '52/55']))
    add({
      id: `F.6/${slug(q)}/first-sight-builds`,
      group,
      where: `App. F.6, "R3 first-sight builds are 50/55, 50/53, 52/55": ${q.name}`,
      printed: value,
      rounding: TEXT,
      arms: [qwenArms(q).R3],
      locator: armText('r3-builds', qwenArms(q).R3, 'First-sight builds'),
    });
  for (const [q, value] of per([2.29, 2.21, 2.29]))
    add({
      id: `F.6/${slug(q)}/commits`,
      group,
      where: `App. F.6, "distinct-class commitments per seed 2.29/2.21/2.29": ${q.name}`,
      printed: value,
      rounding: fixed(2),
      arms: [qwenArms(q).R3],
      locator: cell(qwenArms(q).R3, 'Commits/seed'),
    });
  for (const [q, value] of per([0, 1, 0]))
    add({
      id: `F.6/${slug(q)}/zero-build`,
      group,
      where: `App. F.6, "zero-build seeds 0/1/0": ${q.name}`,
      printed: value,
      rounding: COUNT,
      arms: [qwenArms(q).R3],
      locator: armCount('r3-builds', qwenArms(q).R3, 'Zero-build seeds'),
    });
  for (const [q, value] of per([33.3, 34.0, 39.1]))
    add({
      id: `F.6/${slug(q)}/hazard`,
      group,
      where: `App. F.6, "unconditional first-sight hazards 33.3/34.0/39.1%": ${q.name}`,
      printed: value,
      rounding: percent(1),
      arms: [qwenArms(q).R3],
      locator: cell(qwenArms(q).R3, 'Hazard'),
    });
  for (const [q, budget, cap] of [
    [QWEN_BASE, 20, 4],
    [QWEN_RUN1, 23, 1],
  ] as const) {
    add({
      id: `F.6/${slug(q)}/ended-on-budget`,
      group,
      where: `App. F.6, ${q.name} "truncates on write-budget exhaustion for ${budget}/24 seeds"`,
      printed: budget,
      rounding: COUNT,
      arms: [qwenArms(q).R3],
      locator: arm('r3-builds', qwenArms(q).R3, 'Ended on write budget'),
    });
    add({
      id: `F.6/${slug(q)}/ended-on-token-cap`,
      group,
      where: `App. F.6, ${q.name}: "the 300,000-token session cap for … ${cap}/24"`,
      printed: cap,
      rounding: COUNT,
      arms: [qwenArms(q).R3],
      locator: arm('r3-builds', qwenArms(q).R3, 'Ended on token cap'),
    });
  }
  const r3 = QWEN.map((q) => qwenArms(q).R3);
  add({
    id: 'F.6/mechanically-clean',
    group,
    where: 'App. F.6, "zero malformed, unknown, or refused tool calls across all 72 sessions"',
    printed: 0,
    rounding: COUNT,
    arms: r3,
    locator: armSum('r3-builds', r3, ['Malformed calls', 'Unknown calls', 'Refused writes']),
    note: '"Refused" read as refused writes (no writes left): B.6 reports 8 cross-class run refusals for base-q8, so it cannot mean refused runs.',
  });
}

// --- B.6 (cross-type recognition in class-bound R3; the brief's "C.5") -------------------------------------------------
{
  const group = 'B.6 cross-class refusals';
  const perArm: readonly [string, string, number, number][] = [
    [LADDER_ARMS[OPUS].R3, 'Opus', 1, 66],
    [LADDER_ARMS[SOL].R3, 'GPT-5.6 Sol', 0, 133],
    [LADDER_ARMS[MINI].R3, 'GPT-5.4-mini', 5, 63],
    [qwenArms(QWEN_BASE).R3, 'base-q8', 8, 74],
  ];
  for (const [source, name, refused, attempts] of perArm) {
    add({
      id: `B.6/${source}/refused`,
      group,
      where: `App. B.6 (Cross-type recognition), "${name} ${refused}/${attempts}": refused runs`,
      printed: refused,
      rounding: COUNT,
      arms: [source],
      locator: arm('r3-builds', source, 'Refused runs'),
    });
    add({
      id: `B.6/${source}/attempts`,
      group,
      where: `App. B.6 (Cross-type recognition), "${name} ${refused}/${attempts}": run attempts`,
      printed: attempts,
      rounding: COUNT,
      arms: [source],
      locator: arm('r3-builds', source, 'Run attempts'),
    });
  }
  const classBound = [LADDER_ARMS[OPUS].R3, LADDER_ARMS[MINI].R3, LADDER_ARMS[SOL].R3, ...QWEN.map((q) => qwenArms(q).R3)];
  const total = (column: string): Locator => ({
    table: 'r3-builds',
    at: `row all class-bound arms · magnitude 100, column ${column}`,
    locate: (r) => num(rowsOf(r, 'r3-builds').find((row) => row.Arm === 'all class-bound arms · magnitude 100')?.[column]),
  });
  for (const [column, value, rounding, what] of [
    ['Refused runs', 22, COUNT, 'refused'],
    ['Run attempts', 478, COUNT, 'attempts'],
    ['Refused share', 4.6, percent(1), 'share'],
  ] as const)
    add({
      id: `B.6/total/${what}`,
      group,
      where: `App. B.6, "22 of 478 run attempts (4.6%) were refused as type-mismatched" (magnitude-100 class-bound sessions): ${what}`,
      printed: value,
      rounding,
      arms: classBound,
      locator: total(column),
    });
}

// --- B.4: R3 terminations and mechanical cleanliness of the frontier R3 arms -------------------------------------------
{
  const group = 'B.4 R3 terminations';
  const opus = LADDER_ARMS[OPUS].R3;
  const mini = LADDER_ARMS[MINI].R3;
  const sol = LADDER_ARMS[SOL].R3;
  const items: readonly [string, string, number, Locator][] = [
    ['opus/ended-on-budget', 'Opus "all 24 terminate on budget exhaustion"', 24, arm('r3-builds', opus, 'Ended on write budget')],
    [
      'opus/clean',
      'Opus R3 sessions "contain no malformed or unknown calls"',
      0,
      armSum('r3-builds', [opus], ['Malformed calls', 'Unknown calls']),
    ],
    [
      'gpt-5.4-mini/ended-on-budget',
      'GPT-5.4-mini "truncate on write-budget exhaustion when any script is written (6/24 seeds)"',
      6,
      arm('r3-builds', mini, 'Ended on write budget'),
    ],
    [
      'gpt-5.4-mini/ended-otherwise',
      'GPT-5.4-mini "otherwise run to the 300,000-token session cap or full stream completion (18/24 seeds)"',
      18,
      armSum('r3-builds', [mini], ['Ended on token cap', 'Ended at stream end']),
    ],
    [
      'gpt-5.4-mini/clean',
      'GPT-5.4-mini "zero malformed, unknown, or refused tool calls"',
      0,
      armSum('r3-builds', [mini], ['Malformed calls', 'Unknown calls', 'Refused writes']),
    ],
    [
      'gpt-5.6-sol/ended-on-budget',
      'GPT-5.6 Sol "truncate on budget exhaustion for 12/24 seeds"',
      12,
      arm('r3-builds', sol, 'Ended on write budget'),
    ],
    [
      'gpt-5.6-sol/ended-on-token-cap',
      'GPT-5.6 Sol "on the 300,000-token session cap for the other 12"',
      12,
      arm('r3-builds', sol, 'Ended on token cap'),
    ],
    [
      'gpt-5.6-sol/clean',
      'GPT-5.6 Sol "all 24 are mechanically clean" (malformed, unknown and refused calls)',
      0,
      armSum('r3-builds', [sol], ['Malformed calls', 'Unknown calls', 'Refused writes']),
    ],
  ];
  for (const [id, quote, value, locator] of items)
    add({
      id: `B.4/${id}`,
      group,
      where: `App. B.4 (Models and generation settings), ${quote}`,
      printed: value,
      rounding: COUNT,
      arms: [id.startsWith('opus') ? opus : id.startsWith('gpt-5.4') ? mini : sol],
      locator,
      ...(id.endsWith('clean') &&
        id !== 'opus/clean' && {
          note: '"Refused" read as refused writes: B.6 reports cross-class run refusals for both GPT arms (5/63, 0/133).',
        }),
    });
}

// --- B.5: the competence gate's comparator ----------------------------------------------------------------------------
{
  const group = 'B.5 gate';
  for (const [key, name, value] of [
    [MINI, 'GPT-5.4-mini', 0.96],
    [SOL, 'GPT-5.6 Sol', 1.0],
  ] as const) {
    add({
      id: `B.5/${key}/comparator`,
      group,
      where: `App. B.5 footnote, "clear the comparator bar with margin (GPT-5.4-mini 0.96, GPT-5.6 Sol 1.00)": ${name}`,
      printed: value,
      rounding: fixed(2),
      arms: [LADDER_ARMS[key].R0],
      locator: ladderLeadingNumber('decision-rules', key, 'vs comparator'),
    });
    add({
      id: `B.5/${key}/gate`,
      group,
      where: `App. B.5, "both gated models satisfy the three criteria …": ${name}'s gate`,
      printed: 'passed',
      rounding: TEXT,
      arms: [LADDER_ARMS[key].R0],
      locator: ladderText('decision-rules', key, 'Gate'),
    });
  }
}

// --- B.1: the Opus R3 arm's streams against Opus's urn ----------------------------------------------------------------
add({
  id: 'B.1/opus-structure',
  group: 'B.1 streams',
  where: 'App. B.1, "Structural projections match the canonical Opus urn artifacts on 24/24 seeds": seeds paired',
  printed: 24,
  rounding: COUNT,
  arms: [LADDER_ARMS[OPUS].R0, LADDER_ARMS[OPUS].R3],
  locator: {
    table: 'exclusions.md',
    at: 'opus: R0 with R3 — 24 less the seeds whose pairing was refused (different streams)',
    locate: (r) => {
      if (!r.sources.has(LADDER_ARMS[OPUS].R3)) return null;
      const refused = r.exclusions
        .split('\n')
        .filter((line) => line.startsWith('- opus: R0 with R3: pairing refused on seeds '))
        .flatMap((line) => line.slice('- opus: R0 with R3: pairing refused on seeds '.length).split(':')[0]?.match(/\d+/g) ?? []);
      return 24 - new Set(refused).size;
    },
  },
  note: 'Read from exclusions.md, which names the seeds of a ladder whose rungs played different streams.',
});

export const PAPER_VALUES: readonly PaperValue[] = entries;

/**
 * Printed numbers the paper's stored runs cannot determine, or that are not
 * outcomes at all, left out of the registry on purpose.
 */
export const NOT_DETERMINED: readonly { readonly where: string; readonly values: string; readonly reason: string }[] = [
  {
    where: 'Sec. 3.2 ("hots recur roughly 13–23 times")',
    values: "the hot classes' 13–23 occurrences per stream",
    reason:
      'a verbal approximation: on the 24 panel streams the hot classes occur 9 to 26 times (the streams table gives the range; its traps, 1–6, are checked), and no quantile of them is 13–23',
  },
  {
    where: 'App. A.1 (optimal-policy arithmetic)',
    values:
      '≈13 and 14 expected future occurrences, P(top-3) ≤ (3H₈ − 5/2)/8 ≈ 0.71, 0.74–0.88, ≥ 0.29, P(hot) 0.85 and 0.94–0.97, ≈15-point reuse stream; the simulated scores (withheld)',
    reason:
      'prior arithmetic and Monte Carlo over simulated streams (2×10⁶ posterior draws, 4×10⁴ streams), not the stored runs; the simulated scores are withheld in the paper itself',
  },
  {
    where: 'Figure 6 and App. F.3 (training curves)',
    values: "Run 2's training first-sight 69% → 14% over 20 updates; Run 1's logged endpoints 77% → 42%",
    reason: 'training-batch metrics from the training logs (rl/), not the evaluation runs an import reads',
  },
  {
    where: 'App. D.4 (calibration)',
    values: 'Opus hand-solves roughly 25–38% of problems at magnitude 100 (josephus essentially 100%)',
    reason: 'an isolated hand-solving calibration whose runs are not among the published arms',
  },
  {
    where: 'App. F.6',
    values: 'Run 2\'s R3 terminations ("and Run 2 likewise across its 24 sessions")',
    reason: 'no number is printed: "likewise" does not say whether 23/1 or 20/4 is meant',
  },
  {
    where: 'Sec. 4.1–4.3 prose',
    values:
      '"more than 70% of the time", "no model waits … more than 12%", "less than 30%", "within a 10% interval on R0", "nearly 25% higher … on R2"',
    reason:
      "rounded verbal bounds: the first three follow from Table 1's cells (registered); the last two compare Figure 3's Score points, which the paper prints only for Sol's R0 (78.3%, registered); score.csv holds all of them",
  },
  {
    where: 'App. B.5',
    values: 'suppression replication "met by GPT-5.4-mini; GPT-5.6 Sol instead satisfies it at R3"',
    reason: "not a number: Table 1's failure-point column (registered) carries it; decision-rules shows both rungs",
  },
  {
    where: 'Settings and criteria (Sec. 3, App. A.2, B, C, F.1)',
    values:
      'T = 60, N = 8, B = 3, 0.85 / 0.28̅3 / 0.15 / 0.03, 24 seeds, output limits 512/1500/2500/4096, 300,000-token cap, 10,000 resamples, RNG seed 0, the 30-point rule, the gate thresholds (2.5, 50%, 80%, 90%), the 10% validity rule, PPO hyperparameters, 1.5-second backoff',
    reason: 'inputs and criteria, not outcomes of the runs',
  },
];

// ---------------------------------------------------------------------------
// The check

export type Status = 'equal' | 'differs' | 'misprint' | 'arm absent' | 'missing' | 'not found';

export interface Result {
  readonly entry: PaperValue;
  readonly status: Status;
  /** Ours at the paper's rounding (equal, differs, misprint). */
  readonly ours?: string;
  readonly printed: string;
  /** The arms an 'arm absent' entry needs and the import lacks. */
  readonly absent?: readonly string[];
}

/** A value as the paper would print it. */
export function render(value: number | string, rounding: Rounding): string {
  if (typeof value === 'string') return value;
  const zeroless = (text: string) => (/^-0(\.0+)?$/.test(text) ? text.slice(1) : text);
  switch (rounding.kind) {
    case 'percent':
    case 'points':
      return zeroless((100 * value).toFixed(rounding.digits));
    case 'fixed':
      return zeroless(value.toFixed(rounding.digits));
    case 'count':
      return String(value);
    case 'text':
      return String(value);
  }
}

/** The printed value as a string at its own rounding (a printed percent is already in percent). */
function printedText(entry: PaperValue): string {
  const { printed, rounding } = entry;
  if (typeof printed === 'string') return printed;
  if (rounding.kind === 'percent' || rounding.kind === 'points') return render(printed / 100, rounding);
  return render(printed, rounding);
}

export function checkPaperValues(report: Report, values: readonly PaperValue[] = PAPER_VALUES): Result[] {
  return values.map((entry): Result => {
    const printed = printedText(entry);
    if (entry.missing !== undefined || !entry.locator) return { entry, status: 'missing', printed };
    const absent = entry.arms.filter((source) => !report.sources.has(source));
    if (absent.length > 0) return { entry, status: 'arm absent', printed, absent };
    let value: number | string | null;
    try {
      value = entry.locator.locate(report);
    } catch {
      value = null;
    }
    if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return { entry, status: 'not found', printed };
    const ours = render(value, entry.rounding);
    if (ours === printed) return { entry, status: 'equal', ours, printed };
    return { entry, status: ours === entry.misprint?.correct ? 'misprint' : 'differs', ours, printed };
  });
}

export interface Totals {
  readonly total: number;
  readonly equal: number;
  readonly differs: number;
  readonly misprint: number;
  readonly armAbsent: number;
  readonly missing: number;
  readonly notFound: number;
}

export function totalsOf(results: readonly Result[]): Totals {
  const count = (status: Status) => results.filter((r) => r.status === status).length;
  return {
    total: results.length,
    equal: count('equal'),
    differs: count('differs'),
    misprint: count('misprint'),
    armAbsent: count('arm absent'),
    missing: count('missing'),
    notFound: count('not found'),
  };
}

/** "N of M printed values equal at the paper's rounding; D differ; A need arms not present; X have no place yet". */
export function totalsLine(t: Totals): string {
  const differ = t.differs + t.misprint;
  return (
    `${t.equal} of ${t.total} printed values equal at the paper's rounding; ${differ} differ` +
    `${t.misprint > 0 ? ` (${t.misprint} of them known paper misprints)` : ''}; ${t.armAbsent} need arms not present; ` +
    `${t.missing} have no place yet${t.notFound > 0 ? `; ${t.notFound} NOT FOUND in the report although their arms are present` : ''}`
  );
}

/** The groups in registry order. */
export const GROUPS: readonly string[] = [...new Set(PAPER_VALUES.map((entry) => entry.group))];

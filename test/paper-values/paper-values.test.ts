import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';
import { paperReport, type CliResult } from '../paper-import.js';
import { checkPaperValues, PAPER_VALUES, readReport, render, totalsLine, totalsOf, type Result } from './paper-values.js';

/*
 * Every number the paper prints that its stored runs determine
 * (./paper-values.ts) must come out of `allocbench import` of those runs and
 * one `allocbench analyze` of the import, at the paper's rounding. Checked on
 * the arms present: shared/'s subset by default, or the authors' whole runs/
 * where ALLOCBENCH_PAPER_RUNS points to it. Known misprints of the paper must
 * give the value the arithmetic says instead.
 */

const FULL = process.env.ALLOCBENCH_PAPER_RUNS;
const RUNS = FULL ? resolve(FULL) : PAPER_RUNS;
const HAVE_RUNS = FULL ? existsSync(RUNS) : HAVE_PAPER_RUNS;
const WHY_NOT = FULL ? `skipped: ALLOCBENCH_PAPER_RUNS=${FULL} does not exist` : NO_PAPER_RUNS;

describe('the registry of printed values', () => {
  it('has unique ids, a locator or a reason it has none, and restatements of registered values', () => {
    const ids = PAPER_VALUES.map((entry) => entry.id);
    expect(ids.length).toBeGreaterThan(400);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(PAPER_VALUES.filter((entry) => (entry.locator === undefined) === (entry.missing === undefined)).map((e) => e.id)).toEqual([]);
    expect(PAPER_VALUES.filter((entry) => entry.restates !== undefined && !ids.includes(entry.restates)).map((e) => e.id)).toEqual([]);
    expect(PAPER_VALUES.filter((entry) => entry.arms.length === 0).map((e) => e.id)).toEqual([]);
  });

  it('holds each printed number with no more decimals than its rounding keeps', () => {
    const tooFine = PAPER_VALUES.filter((entry) => {
      if (typeof entry.printed === 'string') return entry.rounding.kind !== 'text';
      if (entry.rounding.kind === 'text') return true;
      if (entry.rounding.kind === 'count') return !Number.isInteger(entry.printed);
      return Number(entry.printed.toFixed(entry.rounding.digits)) !== entry.printed;
    });
    expect(tooFine.map((e) => e.id)).toEqual([]);
  });

  it('rounds as the paper prints: percent and points from fractions, a negative zero without its sign', () => {
    expect(render(0.736111111111, { kind: 'percent', digits: 0 })).toBe('74');
    expect(render(-0.0000001, { kind: 'points', digits: 1 })).toBe('0.0');
    expect(render(2.8333333, { kind: 'fixed', digits: 2 })).toBe('2.83');
    expect(render('72/72', { kind: 'text' })).toBe('72/72');
  });
});

/** `allocbench import` of the runs, then one `analyze` of the import's output directory as a whole, as a researcher would. */
function importAndAnalyze(work: string): { imported: CliResult; analyzed: CliResult; report: string } {
  const imported = runCli('import', RUNS, '--out', join(work, 'runs'));
  const analyzed = imported.status === 0 ? runCli('analyze', join(work, 'runs'), '--out', join(work, 'report')) : imported;
  return { imported, analyzed, report: join(work, 'report') };
}

describe.skipIf(!HAVE_RUNS)(`the paper's printed values from its stored runs (${HAVE_RUNS ? RUNS : WHY_NOT})`, () => {
  let results: Result[];
  // The authors' whole runs/ here; shared/'s subset is imported and analyzed once per test run for every file that reads it.
  const work = FULL ? mkdtempSync(join(tmpdir(), 'allocbench-paper-values-')) : undefined;
  afterAll(() => work && rmSync(work, { recursive: true, force: true }));

  beforeAll(async () => {
    const { imported, analyzed, report } = work ? importAndAnalyze(work) : await paperReport();
    expect(imported.status, imported.stderr).toBe(0);
    expect(analyzed.status, analyzed.stderr).toBe(0);
    results = checkPaperValues(readReport(report));
  });

  it('finds every value whose arms are present, equal at the paper’s rounding (known misprints: the corrected value)', () => {
    const checked = results.filter((r) => r.status !== 'arm absent' && r.status !== 'missing');
    // shared/'s subset alone determines about a hundred of them.
    expect(checked.length).toBeGreaterThan(FULL ? 400 : 90);
    const wrong = checked
      .filter((r) => r.status !== 'equal' && r.status !== 'misprint')
      .map((r) => `${r.status}: ${r.entry.id} (${r.entry.where}): ours ${r.ours ?? '–'}, printed ${r.printed}`);
    expect(wrong, totalsLine(totalsOf(results))).toEqual([]);
    // A misprint is one the paper's entry names; an equal value there would mean the registry is wrong about it.
    for (const r of checked.filter((r) => r.entry.misprint !== undefined)) expect(r.status).toBe('misprint');
  });
});

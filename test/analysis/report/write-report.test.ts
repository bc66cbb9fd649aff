import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLayout } from '../../../run-store/run-layout.js';
import { groupArms } from '../../../analysis/arms.js';
import { loadRuns } from '../../../analysis/load/load-runs.js';
import { writeReport } from '../../../analysis/report/write-report.js';
import { transferTable } from '../../../analysis/tables/transfer-table.js';
import { toCsv } from '../../../analysis/tables/render-table.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-report-'));
const ladder = {
  name: 'ladder',
  models: ['policy/commit-at-1', 'policy/commit-at-2'],
  rungs: ['R0', 'R1', 'R2'],
  seeds: [2000, 2001, 2002],
};

const tableFiles = (out: string) =>
  Object.fromEntries(readdirSync(join(out, 'tables')).map((file) => [file, readFileSync(join(out, 'tables', file), 'utf8')]));

describe('allocbench analyze', () => {
  it("writes the paper's tables, figures and an offline report whose numbers follow from the sessions", async () => {
    const runDir = join(dir, 'ladder');
    writeSyntheticRun(runDir, ladder);
    const out = join(dir, 'report');
    const summary = await writeReport([runDir], out);
    expect(summary).toMatchObject({ sessions: 18, exclusions: 0 });
    expect(summary.tables).toEqual(
      expect.arrayContaining(['framing-ladder', 'paired-ladder-differences', 'zero-commit', 'score', 'cells']),
    );
    expect(summary.figures).toEqual(['optimal-policy', 'score-r0-vs-r2', 'ladder']);
    // commit-at-1 commits only at first sight, commit-at-2 never: 100% and 0% at every rung, no failure point.
    const ladderCsv = readFileSync(join(out, 'tables', 'framing-ladder.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(ladderCsv).toEqual([
      'Model,R0,R1,R2,R3,Failure point (30-point rule),Failure point (suppression)',
      'policy/commit-at-1,1,1,1,,incomplete ladder,incomplete ladder',
      'policy/commit-at-2,0,0,0,,incomplete ladder,incomplete ladder',
    ]);
    expect(readFileSync(join(out, 'tables', 'framing-ladder.tex'), 'utf8')).toContain(
      'policy/commit-at-1 & 100.0\\% & 100.0\\% & 100.0\\% & -- & incomplete ladder & incomplete ladder \\\\',
    );
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('<img src="figures/ladder.svg"');
    expect(html).not.toMatch(/<script|https?:\/\//);
    expect(readFileSync(join(out, 'figures', 'ladder.svg'), 'utf8')).toMatch(/^<svg/);
    expect(html.match(/<a href="sessions\//g)).toHaveLength(18);
    // commit-at-1 fails the gate on first-sight (100% > 50%); commit-at-2 passes; no comparator in these runs.
    const rules = readFileSync(join(out, 'tables', 'decision-rules.csv'), 'utf8').split('\n');
    expect(rules[1]).toMatch(/^policy\/commit-at-1,3\/3 ✓,3\.00 ✓,100\.0% ✗,not evaluated,failed,/);
    expect(rules[2]).toMatch(/^policy\/commit-at-2,3\/3 ✓,3\.00 ✓,0\.0% ✓,not evaluated,passed,/);
  });

  it('compares two arms on paired seeds at every framing both ran', async () => {
    const arms = groupArms((await loadRuns([join(dir, 'ladder')])).sessions);
    const csv = toCsv(transferTable(arms, 'policy/commit-at-1', 'policy/commit-at-2'))
      .trim()
      .split('\n');
    // First-sight falls from 1 to 0 on every seed, so the difference and both ends of its interval are -1;
    // commit-at-2 commits at the second occurrence, so its mean lateness is 1.
    expect(csv.slice(1, 4)).toEqual(['R0', 'R1', 'R2'].map((panel) => `${panel},3,100.0% (0.00),0.0% (1.00),-1,-1,-1`));
    expect(csv[4]).toMatch(/^"P\(keep\), occurrence 1 \(R0\)",3,100\.0% \(9\/9\),0\.0% \(0\/\d+\),,,$/);
    expect(() => transferTable(arms, 'policy/commit-at-1', 'policy/bayes')).toThrow(/no framing has sessions of both/);
  });

  it('writes byte-identical tables from the same runs', async () => {
    const runDir = join(dir, 'ladder');
    const [first, second] = [join(dir, 'again-1'), join(dir, 'again-2')];
    await writeReport([runDir], first);
    await writeReport([runDir], second);
    expect(tableFiles(first)).toEqual(tableFiles(second));
    expect(readFileSync(join(first, 'figures', 'ladder.svg'))).toEqual(readFileSync(join(second, 'figures', 'ladder.svg')));
  });

  it('says what it excluded and why: unfinished sessions, mismatched streams, missing directories', async () => {
    const partial = join(dir, 'partial');
    const specs = writeSyntheticRun(partial, { ...ladder, name: 'partial', models: ['policy/commit-at-2'], rungs: ['R0'] });
    rmSync(runLayout.summary(partial, specs[0]!));
    const other = join(dir, 'other');
    const [mismatched] = writeSyntheticRun(other, {
      ...ladder,
      name: 'other',
      models: ['policy/commit-at-1'],
      rungs: ['R1'],
      seeds: [2001],
    });
    const path = runLayout.summary(other, mismatched!);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), streamHash: 'f'.repeat(64) }));
    const out = join(dir, 'excluded');
    const summary = await writeReport([partial, other, join(dir, 'nowhere')], out);
    const excluded = readFileSync(join(out, 'exclusions.md'), 'utf8');
    expect(excluded).toContain('policy/commit-at-2/R0/ball/B3-K0/n-hidden/seed-2000: not finished (in flight)');
    expect(excluded).toMatch(/seed-2001: its summary names stream ffffffffffff but the run directory holds [0-9a-f]{12}/);
    expect(excluded).toContain(`${join(dir, 'nowhere')}: no such directory`);
    expect(summary.sessions).toBe(2); // seeds 2001 and 2002 at R0
  });

  it('pairs the rungs of a ladder only on seeds played on the same streams, and says where it refused', async () => {
    // Streams of 12 items: the pairing reads only whether two sessions' streams are the same, and policy/optimal's
    // table for the online Score, which analyze computes for streams not in the test cache, solves at once at T = 12
    // (about a minute at the default T = 60).
    const base = { ...ladder, models: ['policy/commit-at-2'], seeds: [2000, 2001] };
    const r0 = join(dir, 'pair-r0');
    const r1 = join(dir, 'pair-r1');
    writeSyntheticRun(r0, { ...base, name: 'pair-r0', rungs: ['R0'], stream: { length: 12 } });
    // Another hot mass draws other class sequences on the same seeds.
    writeSyntheticRun(r1, { ...base, name: 'pair-r1', rungs: ['R1'], stream: { length: 12, hotMass: 0.6 } });
    const out = join(dir, 'pairing');
    await writeReport([r0, r1], out);
    const excluded = readFileSync(join(out, 'exclusions.md'), 'utf8');
    expect(excluded).toContain(
      'policy/commit-at-2: R0 with R1: pairing refused on seeds 2000, 2001: the two arms played different streams',
    );
    const paired = readFileSync(join(out, 'tables', 'paired-ladder-differences.csv'), 'utf8')
      .trim()
      .split('\n')[1];
    expect(paired).toMatch(/^policy\/commit-at-2,–?,/);
  });

  it('reports an arm without commitments as undefined rather than failing', async () => {
    const runDir = join(dir, 'never');
    writeSyntheticRun(runDir, {
      name: 'never',
      models: ['policy/commit-at-99', 'policy/commit-at-1'],
      rungs: ['R0', 'R1'],
      seeds: [2000, 2001],
    });
    const out = join(dir, 'never-report');
    const summary = await writeReport([runDir], out);
    expect(summary.figures).toEqual(['optimal-policy', 'ladder']); // the never-committing model has no first-sight to plot
    const ladderMd = readFileSync(join(out, 'tables', 'framing-ladder.md'), 'utf8');
    expect(ladderMd).toContain('| policy/commit-at-99 | – | – | – | – | incomplete ladder | incomplete ladder |');
    const perSeed = readFileSync(join(out, 'tables', 'per-seed.csv'), 'utf8').split('\n');
    expect(perSeed.filter((row) => row.startsWith('policy/commit-at-99,R0,ball,no,3,0,100,'))).toEqual([
      expect.stringMatching(/^policy\/commit-at-99,R0,ball,no,3,0,100,2000,0,,0,,/),
      expect.stringMatching(/^policy\/commit-at-99,R0,ball,no,3,0,100,2001,0,,0,,/),
    ]);
  });

  it('refuses, in one line, when nothing is left to analyze', async () => {
    await expect(writeReport([join(dir, 'nowhere')], join(dir, 'empty'))).rejects.toThrow(
      /^nothing to analyze in .*nowhere: no such directory\)$/,
    );
  });
});

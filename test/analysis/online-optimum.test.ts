import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupArms, type Arm } from '../../analysis/arms.js';
import { loadRuns } from '../../analysis/load/load-runs.js';
import { onlineOptima, withOnlineOptima } from '../../analysis/online-optimum.js';
import { writeReport } from '../../analysis/report/write-report.js';
import { summarizeArm } from '../../analysis/stats/arm-summary.js';
import { parseCsv } from '../paper-values/paper-values.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { resultsTable } from '../../cli/print-results.js';
import { readRunResults } from '../../analysis/run-results.js';

// Streams of 20 items: policy/optimal's table solves in a fraction of a second (at 60 items it takes a minute).
const dir = mkdtempSync(join(tmpdir(), 'allocbench-online-'));
const runDir = join(dir, 'run');
writeSyntheticRun(runDir, {
  name: 'online',
  models: ['policy/optimal', 'policy/eager', 'policy/commit-at-2'],
  rungs: ['R0', 'R1', 'R3'],
  seeds: [2000, 2001, 2002, 2003, 2004, 2005],
  announceN: [true],
  stream: { length: 20 },
});

async function armsWith(cacheDir: string | null): Promise<Arm[]> {
  const loaded = await loadRuns([runDir]);
  return groupArms((await withOnlineOptima(loaded.sessions, { cacheDir })).sessions);
}

const armOf = (arms: readonly Arm[], model: string, rung: string) =>
  arms.find((arm) => arm.key.model === model && arm.key.rung === rung) as Arm;

describe("the online Score: each session against policy/optimal's net on its own stream", () => {
  it("is exactly 1, with no regret on any seed, for policy/optimal's own sessions", async () => {
    const arms = await armsWith(null);
    for (const rung of ['R0', 'R1']) {
      const arm = armOf(arms, 'policy/optimal', rung);
      expect(arm.sessions.every((s) => s.online?.regret === 0)).toBe(true);
      const online = summarizeArm(arm.key.rung, arm.sessions).online;
      expect(online).toMatchObject({ sessions: 6, score: 1, meanRegret: 0 });
    }
  });

  it('is below 1 for a worse policy, and no online optimum exceeds the hindsight optimum', async () => {
    const arms = await armsWith(null);
    const eager = summarizeArm('R0', armOf(arms, 'policy/eager', 'R0').sessions).online;
    expect(eager?.score).toBeLessThan(1);
    expect(eager?.meanRegret).toBeGreaterThan(0);
    for (const session of arms.flatMap((arm) => arm.sessions)) {
      expect(session.online?.optimum).toBeLessThanOrEqual(session.metrics.optimum);
    }
  });

  it('is not given at R3, which is not scored, though each session there has its online optimum', async () => {
    const arm = armOf(await armsWith(null), 'policy/commit-at-2', 'R3');
    expect(arm.sessions.every((s) => s.online !== undefined)).toBe(true);
    expect(summarizeArm('R3', arm.sessions).online).toBeNull();
  });

  it('keeps the nets in the cache and reads them back instead of solving again', async () => {
    const cacheDir = join(dir, 'cache');
    const said: string[] = [];
    const { sessions: first } = await withOnlineOptima((await loadRuns([runDir])).sessions, { cacheDir, say: (line) => said.push(line) });
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^online optimum: solving policy\/optimal's table for T20-B3-K0-.* \(6 new streams/);
    const [file] = readdirSync(join(cacheDir, 'online-optimum-v1'));
    const path = join(cacheDir, 'online-optimum-v1', file as string);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
    expect(Object.keys(stored)).toHaveLength(6);
    // A planted value is read back as it is: nothing is solved for a stream the cache holds.
    const [classes] = Object.keys(stored) as [string];
    writeFileSync(path, JSON.stringify({ ...stored, [classes]: 1234 }));
    said.length = 0;
    const spec = first[0]?.spec as (typeof first)[number]['spec'];
    expect(await onlineOptima([{ spec, classes }], { cacheDir, say: (line) => said.push(line) })).toEqual({ nets: [1234], unsolved: [] });
    expect(said).toEqual([]);
  });

  it('ignores a malformed cache, says so in one line and writes it again', async () => {
    const cacheDir = join(dir, 'broken-cache');
    const sessions = (await loadRuns([runDir])).sessions;
    const expected = (await withOnlineOptima(sessions, { cacheDir: null })).sessions.map((s) => s.onlineOptimum);
    await withOnlineOptima(sessions, { cacheDir });
    const [file] = readdirSync(join(cacheDir, 'online-optimum-v1'));
    const path = join(cacheDir, 'online-optimum-v1', file as string);
    writeFileSync(path, '{"not a class sequence": "x"');
    const said: string[] = [];
    const again = await withOnlineOptima(sessions, { cacheDir, say: (line) => said.push(line) });
    expect(again.sessions.map((s) => s.onlineOptimum)).toEqual(expected);
    expect(said[0]).toMatch(/^online optimum: ignoring the cache .*; it is rewritten$/);
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')))).toHaveLength(new Set(sessions.map((s) => s.classes)).size);
  });

  it('is in the run table and its JSON, per cell', async () => {
    const results = await readRunResults(runDir, { cacheDir: join(dir, 'table-cache') });
    const cell = (model: string, rung: string) => results.cells.find((c) => c.model === model && c.rung === rung);
    expect(cell('policy/optimal', 'R1')?.online).toMatchObject({ score: 1, meanRegret: 0 });
    expect(cell('policy/eager', 'R1')?.online?.score).toBeLessThan(1);
    expect(cell('policy/eager', 'R3')?.online).toBeNull();
    const lines = resultsTable(results).split('\n');
    expect(lines[0]).toMatch(/Score +online Score +online regret/);
    expect(lines.find((line) => /^policy\/optimal +R1 /.test(line))).toMatch(/ 100\.0% +0\.00 /);
    expect((await readRunResults(runDir)).cells.every((c) => c.online === null)).toBe(true);
  });

  it("is in analyze's cell, diagnostics, per-seed and online-score tables", async () => {
    const out = join(dir, 'report');
    await writeReport([runDir], out, { cacheDir: join(dir, 'report-cache') });
    const rows = (id: string) => parseCsv(readFileSync(join(out, 'tables', `${id}.csv`), 'utf8'));
    const optimalR0 = rows('cells').find((r) => r.Model === 'policy/optimal' && r.Rung === 'R0');
    expect(optimalR0?.['Online Score']).toBe('1');
    expect(optimalR0?.['Online regret']).toBe('0');
    expect(rows('cells').find((r) => r.Model === 'policy/eager' && r.Rung === 'R3')?.['Online Score']).toBe('');
    expect(Number(rows('cell-diagnostics').find((r) => r.Arm === 'policy/eager' && r.Rung === 'R1')?.['Online regret'])).toBeGreaterThan(0);
    expect(rows('per-seed').every((r) => Number(r['Online optimum']) <= Number(r.Optimum))).toBe(true);
    const online = rows('online-score');
    expect(online.map((r) => r.Model).sort()).toEqual(['policy/commit-at-2', 'policy/eager', 'policy/optimal']);
    expect(online.find((r) => r.Model === 'policy/optimal')?.['Online Score R1']).toBe('1');
    expect(Number(online.find((r) => r.Model === 'policy/eager')?.['Online Score R0'])).toBeLessThan(1);
    for (const format of ['md', 'tex']) expect(existsSync(join(out, 'tables', `online-score.${format}`))).toBe(true);
    expect(readFileSync(join(out, 'tables', 'online-score.md'), 'utf8')).toContain('Online Score R0');
  });

  it('leaves sessions whose table is out of reach without one, and the report says why', async () => {
    const longRun = join(dir, 'long');
    writeSyntheticRun(longRun, { name: 'long', models: ['policy/commit-at-2'], rungs: ['R1'], seeds: [2000], stream: { length: 200 } });
    const out = join(dir, 'long-report');
    await writeReport([longRun], out, { cacheDir: null });
    expect(readFileSync(join(out, 'exclusions.md'), 'utf8')).toMatch(
      /- online Score of 1 sessions at T200-B3-K0-.*: policy\/optimal's table is out of reach \(optimal: the exact table for T=200, B=3, K=0, N=8 has .* states/,
    );
    const [cell] = parseCsv(readFileSync(join(out, 'tables', 'cells.csv'), 'utf8'));
    expect([cell?.Score !== '', cell?.['Online Score'], cell?.['Online regret']]).toEqual([true, '', '']);
    expect((await readRunResults(longRun, { cacheDir: null })).cells[0]?.online).toBeNull();
  });
});

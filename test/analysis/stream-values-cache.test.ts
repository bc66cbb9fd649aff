import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { valuesPerStream } from '../../analysis/stream-values-cache.js';

/** A solve that counts the streams it is given and values each by its length. */
function countingSolve() {
  const solved: string[][] = [];
  const solve = (missing: ReadonlySet<string>) => {
    solved.push([...missing]);
    return [...missing].map((classes) => [classes, classes.length] as const);
  };
  return { solved, solve };
}

describe('values kept per stream', () => {
  it('solves a setting once when two processes ask at the same time, the second reading what the first wrote', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'allocbench-values-'));
    // The first process (the built module, as `npm test` builds it) holds the lock through a solve of 1.5 s.
    const module = fileURLToPath(new URL('../../dist/analysis/stream-values-cache.js', import.meta.url));
    const code = `const { valuesPerStream } = await import(${JSON.stringify(module)});
      await valuesPerStream('kind-v1/setting', ['01', '012'], (missing) => {
        process.stdout.write('solving\\n');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
        return [...missing].map((classes) => [classes, classes.length]);
      }, { cacheDir: ${JSON.stringify(cacheDir)} });`;
    const first = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    await new Promise((resolve) => first.stdout.once('data', resolve));
    const { solved, solve } = countingSolve();
    const said: string[] = [];
    const ask = (streams: string[]) => valuesPerStream('kind-v1/setting', streams, solve, { cacheDir, say: (line) => said.push(line) });

    expect(Object.fromEntries(await ask(['012', '01']))).toEqual({ '01': 2, '012': 3 });
    expect(await exited).toBe(0);
    expect(solved).toEqual([]);
    expect(said.some((line) => line.startsWith(`waiting for pid ${first.pid} `))).toBe(true);
    // Known now: a later caller solves only what is new.
    await ask(['01', '0123']);
    expect(solved).toEqual([['0123']]);
  });

  it('takes over the solving lock of a process that is gone', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'allocbench-values-'));
    mkdirSync(join(cacheDir, 'kind-v1'));
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const holder = { pid: gone, host: hostname(), since: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(cacheDir, 'kind-v1', 'setting.json.solving'), `${JSON.stringify(holder)}\n`);
    const { solved, solve } = countingSolve();
    const said: string[] = [];

    const values = await valuesPerStream('kind-v1/setting', ['0'], solve, { cacheDir, say: (line) => said.push(line) });

    expect(Object.fromEntries(values)).toEqual({ '0': 1 });
    expect(solved).toEqual([['0']]);
    expect(said).toContain(
      `took over the stale lock of ${join(cacheDir, 'kind-v1', 'setting.json')}: pid ${gone} on host ${hostname()} since 2026-01-01T00:00:00.000Z, which is gone`,
    );
  });

  it('solves the table itself once it has waited long enough for a holder that lives on', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'allocbench-values-'));
    mkdirSync(join(cacheDir, 'kind-v1'));
    // This process, as a thread of it that died holding the lock would leave it.
    const holder = { pid: process.pid, host: hostname(), since: '2026-01-01T00:00:00.000Z' };
    const lock = join(cacheDir, 'kind-v1', 'setting.json.solving');
    writeFileSync(lock, `${JSON.stringify(holder)}\n`);
    const { solved, solve } = countingSolve();
    const said: string[] = [];

    const values = await valuesPerStream('kind-v1/setting', ['0'], solve, { cacheDir, solvingWaitMs: 500, say: (line) => said.push(line) });

    expect(Object.fromEntries(values)).toEqual({ '0': 1 });
    expect(solved).toEqual([['0']]);
    expect(said).toEqual([
      `waiting for pid ${process.pid} on host ${hostname()} since 2026-01-01T00:00:00.000Z, which is solving the same table (${lock})`,
      `solving the table without waiting longer for pid ${process.pid} on host ${hostname()} since 2026-01-01T00:00:00.000Z (${lock})`,
    ]);
  });

  it('keeps nothing and solves every stream without a cache directory', async () => {
    const { solved, solve } = countingSolve();
    const values = await valuesPerStream('kind-v1/setting', ['01', '01', '2'], solve, { cacheDir: null });
    expect(Object.fromEntries(values)).toEqual({ '01': 2, '2': 1 });
    expect(solved).toEqual([['01', '2']]);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLayout } from '../../run-store/run-layout.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { runCli } from './run-cli.js';
import { RunIndex } from '../../viewer/run-index.js';

describe('allocbench status', () => {
  it('counts sessions finished, in flight (begun, no summary yet) and waiting (not begun)', () => {
    const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-status-')), 'run');
    const specs = writeSyntheticRun(runDir, { name: 'progress', models: ['policy/eager'], rungs: ['R0'], seeds: '2000-2003' });
    const [first, second] = specs;
    rmSync(runLayout.summary(runDir, first!));
    rmSync(runLayout.summary(runDir, second!));
    rmSync(runLayout.transcript(runDir, second!));
    const status = runCli('status', runDir, '--json');
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ finished: 2, inFlight: 1, waiting: 1, total: 4 });
    // finished, stopped (cap), cancelled, failed, in flight, waiting, unreadable, invalid cells
    expect(runCli('status', runDir).stdout).toMatch(/progress\s+2\/4\s+0\s+0\s+0\s+1\s+1\s+0\s+none/);
  });

  it('counts a damaged summary as unreadable, as the viewer does, never as in flight', async () => {
    const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-status-')), 'run');
    const [damaged] = writeSyntheticRun(runDir, { name: 'damaged', models: ['policy/eager'], rungs: ['R0'], seeds: '2000-2002' });
    writeFileSync(runLayout.summary(runDir, damaged!), '{"sessionKey": ');
    const status = runCli('status', runDir, '--json');
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ finished: 2, inFlight: 0, unreadable: 1, total: 3 });
    expect(status.stderr).toMatch(/summary\.json: not valid JSON.*\(counted as unreadable\)/);
    expect((await (await RunIndex.open(runDir)).live()).states).toMatchObject({ finished: 2, 'in flight': 0, unreadable: 1 });
    expect(runCli('status', runDir, '--watch').status, 'nothing in flight or waiting: the watch ends').toBe(0);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLayout } from '../../run-store/run-layout.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { runCli } from './run-cli.js';

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
    expect(runCli('status', runDir).stdout).toMatch(/progress\s+2\/4\s+1\s+1\s+0\s+none/);
  });
});

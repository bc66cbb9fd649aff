import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { spendProgress } from '../../client/sweep-progress.js';
import { openRunStore } from '../../run-store/open-run-store.js';

describe("the sweep's progress line", () => {
  it("shows the calls throttled, as every worker last recorded them, and the money spent against the run's cap", async () => {
    const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-spend-')), 'run');
    writeSyntheticRun(runDir, { name: 'spend', models: ['policy/eager'], rungs: ['R0'], seeds: '2000' });
    const store = openRunStore(runDir);
    expect(await spendProgress(store, 20)).toEqual({ throttled: 0, spent: '$0.00 of $20.00 cap' });
    const at = '2026-01-01T00:00:00.000Z';
    await store.recordCost({ at, session: 'a', t: 1, costUsd: 1.5 });
    await store.recordCost({ at, session: 'a', t: 2, costUsd: 0.25 });
    const record = { provider: 'openai', at, limit: 4, floor: 1, ceiling: 8, cuts: 1, changes: [] };
    await store.writeConcurrency({ ...record, worker: 'host:1', throttled: 3 });
    await store.writeConcurrency({ ...record, worker: 'host:2', throttled: 2 });
    expect(await spendProgress(store, 20)).toEqual({ throttled: 5, spent: '$1.75 of $20.00 cap' });
    expect((await spendProgress(store, null)).spent).toBe('$1.75 (no cap)');
  });
});

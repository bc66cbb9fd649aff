import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../../analysis/report/write-report.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';

const csv = (path: string) => {
  const [header, ...rows] = readFileSync(path, 'utf8').trim().split('\n');
  const names = (header ?? '').split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [names[i] ?? '', cell])));
};

describe("the ladder's decision rules", () => {
  it("measure the gate's fourth criterion against the exact Bayesian comparator on the same streams", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-gate-'));
    writeSyntheticRun(join(dir, 'run'), {
      name: 'gate',
      models: ['policy/bayes', 'policy/eager'],
      rungs: ['R0'],
      announceN: [true],
      seeds: [2000, 2001, 2002, 2003],
    });
    const out = join(dir, 'report');
    await writeReport([join(dir, 'run')], out);
    const rules = Object.fromEntries(
      readFileSync(join(out, 'tables', 'decision-rules.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => [row.split(',')[0], row]),
    );
    // The comparator collects exactly what policy/bayes collects, so its own ratio is 1; eager collects less on these streams.
    expect(rules['policy/bayes']).toMatch(/^policy\/bayes,4\/4 ✓,[\d.]+ [✓✗],[\d.]+% [✓✗],1\.00 ✓,/);
    expect(rules['policy/eager']).toMatch(/,0\.\d\d [✓✗],/);
  });

  it('give a ladder run at another magnitude the R0 of the same model, so its R3 − R0 difference is measured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-magnitude-'));
    const seeds = [2000, 2001, 2002];
    writeSyntheticRun(join(dir, 'ladder'), { name: 'ladder', models: ['policy/commit-at-1'], rungs: ['R0', 'R1', 'R2', 'R3'], seeds });
    writeSyntheticRun(join(dir, 'hard'), {
      name: 'hard',
      models: ['policy/commit-at-1'],
      rungs: ['R3'],
      stream: { magnitude: 1000 },
      seeds,
    });
    const out = join(dir, 'report');
    await writeReport([join(dir, 'ladder'), join(dir, 'hard')], out);
    const paired = csv(join(out, 'tables', 'paired-ladder-differences.csv'));
    expect(paired.map((row) => row.Model)).toEqual(['policy/commit-at-1 · magnitude 100', 'policy/commit-at-1 · magnitude 1000']);
    // commit-at-1 builds at first sight on the urn and with scripts alike: R3 − R0 is 0 at both magnitudes, measured on all three seeds.
    for (const row of paired) expect([row['R3−R0'], row['R3−R0 low'], row['R3−R0 high']]).toEqual(['0', '0', '0']);
    const ladder = csv(join(out, 'tables', 'framing-ladder.csv'));
    expect(ladder[1]).toMatchObject({ R0: '1', R1: '', R2: '', R3: '1' });
  });
});

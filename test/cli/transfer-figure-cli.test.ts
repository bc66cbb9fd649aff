import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { runCli } from './run-cli.js';

// Two arms with the transfer ladder's extra panels: commit-at-2 (B) is better than commit-at-1 (A) everywhere.
const dir = mkdtempSync(join(tmpdir(), 'allocbench-transfer-cli-'));
const runDir = join(dir, 'run');
writeSyntheticRun(runDir, {
  name: 'run',
  models: ['policy/commit-at-1', 'policy/commit-at-2'],
  rungs: ['R0', 'probe', 'R1'],
  reskins: ['ball', 'chest'],
  seeds: [2000, 2001],
});
const isPng = (file: string) => readFileSync(file).subarray(1, 4).toString() === 'PNG';

describe('the transfer figure from the CLI', () => {
  it('compare --out writes figures/transfer.svg and .png beside the table', () => {
    const out = join(dir, 'compare');
    const { status, stdout } = runCli('compare', runDir, '--a', 'policy/commit-at-1', '--b', 'policy/commit-at-2', '--out', out);
    expect(status).toBe(0);
    expect(stdout).toContain('### policy/commit-at-2 against policy/commit-at-1');
    expect(existsSync(join(out, 'transfer-policy-commit-at-2-vs-policy-commit-at-1.csv'))).toBe(true);
    const svg = readFileSync(join(out, 'figures', 'transfer.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('>A: policy/commit-at-1</text>');
    expect(svg).toContain('>B: policy/commit-at-2</text>');
    expect(isPng(join(out, 'figures', 'transfer.png'))).toBe(true);
  });

  it('analyze draws one per pair of transfer models, A the first by name when none is a base, beside its paired table', () => {
    const out = join(dir, 'report');
    expect(runCli('analyze', runDir, '--out', out).status).toBe(0);
    const svg = readFileSync(join(out, 'figures', 'transfer-policy-commit-at-2.svg'), 'utf8');
    expect(svg).toContain('>A: policy/commit-at-1</text>');
    expect(isPng(join(out, 'figures', 'transfer-policy-commit-at-2.png'))).toBe(true);
    expect(existsSync(join(out, 'figures', 'transfer-policy-commit-at-1.svg'))).toBe(false);
    // The paired transfer table (Table F's Δ columns) for the same pair.
    const table = readFileSync(join(out, 'tables', 'transfer-policy-commit-at-2-vs-policy-commit-at-1.csv'), 'utf8');
    expect(table.split('\n')[0]).toBe(
      'Panel,Seeds,policy/commit-at-1,policy/commit-at-2,B − A [95% CI],B − A [95% CI] low,B − A [95% CI] high',
    );
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('<img src="figures/transfer-policy-commit-at-2.svg"');
    expect(html).toMatch(/policy\/commit-at-1 \(A\) and policy\/commit-at-2 \(B\)/);
  });
});

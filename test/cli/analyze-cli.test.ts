import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-analyze-cli-'));
const runDir = join(dir, 'run');
writeSyntheticRun(runDir, { name: 'run', models: ['policy/commit-at-1', 'policy/commit-at-2'], rungs: ['R0', 'R3'], seeds: [2000, 2001] });

describe('allocbench analyze and compare', () => {
  it('write the report and say where it is', () => {
    const out = join(dir, 'report');
    const { status, stdout } = runCli('analyze', runDir, '--out', out);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Report in .*index\.html: 8 sessions, \d+ tables, \d+ figures\.\n$/);
    expect(existsSync(join(out, 'tables', 'r3-builds.csv'))).toBe(true);
    expect(existsSync(join(out, 'figures', 'r0-vs-r3.svg'))).toBe(true);
  });

  it('print the paired transfer table for two arms', () => {
    const { status, stdout } = runCli('compare', runDir, '--a', 'policy/commit-at-1', '--b', 'policy/commit-at-2');
    expect(status).toBe(0);
    expect(stdout).toContain('### policy/commit-at-2 against policy/commit-at-1');
    expect(stdout).toMatch(/\| R3 \| 2 \| 100\.0% \(0\.00\) \| 0\.0% \(1\.00\) \| -100\.0 \[-100\.0, -100\.0\] \|/);
  });

  it.each([
    [['analyze', join(dir, 'nowhere'), '--out', join(dir, 'x')], /^allocbench: .*nowhere: no such run directory$/],
    [['analyze', runDir], /--out/],
    [
      ['compare', runDir, '--a', 'policy/commit-at-1', '--b', 'policy/bayes'],
      /^allocbench: model B: no model in these runs starts with 'policy\/bayes' \(models: policy\/commit-at-1, policy\/commit-at-2\)$/,
    ],
  ])('reject %j with one line and exit 2', (args, message) => {
    const { status, stderr } = runCli(...args);
    expect(status).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(message);
  });
});

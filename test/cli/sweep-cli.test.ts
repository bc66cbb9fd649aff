import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliWith } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-cli-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Exit code 2, one line on stderr, no stack trace, and nothing written to the run directory. */
function expectRefused(args: string[], pattern: RegExp, env: Record<string, string> = {}): void {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const { status, stderr } = runCliWith(env, [...args, '--out', out]);
  expect(status, stderr).toBe(2);
  expect(stderr.trimEnd().split('\n').filter((line) => !line.startsWith('Sweep '))).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(join(out, 'manifest.json'))).toBe(false);
}

describe('allocbench sweep and run refuse bad input before anything starts', () => {
  it.each([
    [['sweep', join(dir, 'missing.yaml')], /missing\.yaml: cannot read the sweep file/],
    [['sweep', file('bad.yaml', 'name: [unclosed\n')], /bad\.yaml: not valid YAML or JSON/],
    [['sweep', file('typo.yaml', 'name: x\nmodels: [policy/eager]\nrungs: [R7]\n')], /typo\.yaml\.rungs\.0: /],
    [['sweep', file('nomodels.json', '{"name": "x", "rungs": ["R0"]}')], /nomodels\.json\.models: required but missing/],
    [['run', '--model', 'acme/brain-1', '--rung', 'R0'], /unknown provider 'acme'/],
    [['run', '--model', 'policy/greedy', '--rung', 'R0'], /unknown reference policy 'greedy'/],
    [['run', '--model', 'gpt', '--rung', 'R0'], /expected provider\/model/],
    [['run', '--model', 'policy/bayes', '--rung', 'R0'], /needs N disclosed/],
    [['run', '--model', 'policy/eager', '--rung', 'R1', '--reskin', 'chest'], /--reskin: applies only to R0 and probe/],
    [['run', '--model', 'policy/eager', '--rung', 'R5'], /--rung <rung>' argument 'R5' is invalid/],
    [['run', '--model', 'policy/eager', '--rung', 'R0', '--no-worker'], /--no-worker needs TEMPORAL_ADDRESS/],
  ])('%j', (args, pattern) => expectRefused(args, pattern));

  it('names an unreachable Temporal address', () => {
    expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0'], /cannot reach Temporal at 127\.0\.0\.1:1: /, { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0'], /TEMPORAL_ADDRESS: 'not an address' is not host:port/, { TEMPORAL_ADDRESS: 'not an address' });
  });

  it('asks for a cluster address before starting a worker', () => {
    const { status, stderr } = runCliWith({}, ['worker']);
    expect(status).toBe(2);
    expect(stderr).toMatch(/set TEMPORAL_ADDRESS/);
  });

  it('names a port that is already taken', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, () => resolve((blocker.address() as { port: number }).port)));
    try {
      expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0', '--temporal-port', String(port)], new RegExp(`port ${port} is already taken`));
    } finally {
      blocker.close();
    }
  });
});

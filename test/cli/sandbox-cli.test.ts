import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getFamily } from '../../core/families/registry.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scriptFile(name: string, code: string): string {
  const path = join(dir, name);
  writeFileSync(path, code);
  return path;
}

const lcgInputs = { SEED: 141, A: 73100, B: 38400, M: 21759900, K: 26 };
const lcg = scriptFile(
  'lcg.js',
  `function solve({ SEED, A, B, M, K }) {
    let x = BigInt(SEED);
    for (let i = 0; i < K; i++) x = (BigInt(A) * x + BigInt(B)) % BigInt(M);
    console.log('steps', K);
    return x;
  }`,
);

describe('allocbench sandbox', () => {
  it("prints a script's value, wall and CPU time and logs as JSON", () => {
    const { status, stdout, stderr } = runCli('sandbox', '--code-file', lcg, '--inputs', JSON.stringify(lcgInputs));
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const outcome = JSON.parse(stdout);
    expect(outcome).toEqual({
      ok: true,
      value: getFamily('lcg').solve(lcgInputs).toString(),
      ms: expect.any(Number),
      cpuMs: expect.any(Number),
      logs: 'steps 26\n',
    });
  });

  it('prints a failing run as its outcome and still exits 0', () => {
    const thrower = scriptFile('throw.js', "function solve() { throw new RangeError('no'); }");
    const thrown = runCli('sandbox', '--code-file', thrower, '--inputs', '{}');
    expect(thrown.status).toBe(0);
    expect(JSON.parse(thrown.stdout)).toEqual({
      ok: false,
      kind: 'throw',
      error: 'RangeError: no',
      ms: expect.any(Number),
      cpuMs: expect.any(Number),
    });

    const looper = scriptFile('loop.js', 'function solve() { for (;;) {} }');
    // A limit whose wall-clock guard (ten times it) a loaded machine's scheduling does not reach first.
    const timedOut = runCli('sandbox', '--code-file', looper, '--inputs', '{}', '--timeout-ms', '500');
    expect(timedOut.status).toBe(0);
    const outcome = JSON.parse(timedOut.stdout);
    expect(outcome).toMatchObject({ ok: false, kind: 'timeout', limit: 'cpu', error: 'ran past the 500 ms CPU time limit' });
    expect(outcome.cpuMs).toBeGreaterThanOrEqual(500);
  });

  it('prints the memory outcome of a script V8 loses to out-of-memory, and exits: the lost isolate goes with its own process', () => {
    const bomb = scriptFile('bomb.js', 'function solve() { return Array(1e8).fill(0).length; }');
    // A time limit the allocation cannot reach first, however slow a loaded machine makes it.
    const { status, stdout } = runCli('sandbox', '--code-file', bomb, '--inputs', '{}', '--memory-mb', '16', '--timeout-ms', '60000');
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, kind: 'memory', error: 'exceeded the 16 MB memory limit' });
    expect(status).toBe(0); // V8's report of the lost heap may be on stderr
  });

  it.each([
    [['--code-file', join(dir, 'missing.js'), '--inputs', '{}'], /--code-file: cannot read .*missing\.js \(ENOENT\)/],
    [['--code-file', dir, '--inputs', '{}'], /--code-file: cannot read .* \(EISDIR\)/],
    [['--code-file', lcg, '--inputs', '{"SEED": 1'], /--inputs: malformed JSON/],
    [
      ['--code-file', lcg, '--inputs', '{}', '--timeout-ms', '5'],
      /--timeout-ms <N>' argument '5' is invalid. expected an integer from 10 to 60000/,
    ],
    [
      ['--code-file', lcg, '--inputs', '{}', '--memory-mb', '1.5'],
      /--memory-mb <N>' argument '1.5' is invalid. expected an integer from 8 to 4096/,
    ],
    [['--inputs', '{}'], /required option '--code-file <file>' not specified/],
  ])('rejects %j with one line and exit 2', (args, pattern) => {
    const { status, stdout, stderr } = runCli('sandbox', ...args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(pattern);
  });
});

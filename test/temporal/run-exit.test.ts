import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { readManifest } from '../../run-store/manifest.js';
import { runCliWith } from '../cli/run-cli.js';
import { serverForThisFile, summaryOf } from './harness.js';
import { cliPath } from '../../infra/project-root.js';

/*
 * How a run ends when it cannot finish: sessions that did not finish give
 * exit 3 and are named; a file-system error on the run directory — before it
 * starts or in the middle, a full disk — is one line naming the path and the
 * cause, exit 2, and nothing already recorded becomes unreadable. Real CLI
 * processes against a real Temporal server.
 */

const temporal = serverForThisFile();
const dir = mkdtempSync(join(tmpdir(), 'allocbench-exit-'));
const env = () => temporal.env;
const run = (model: string, out: string, seeds = '2000-2001') =>
  ['run', '--model', model, '--rung', 'R0', '--seeds', seeds, '--out', out] as const;
const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('allocbench:'));

describe('a run that cannot finish', () => {
  it('exits 3 and names every session that did not finish', () => {
    const out = join(dir, 'incomplete');
    const result = runCliWith(env(), run('policy/eager?permanent=3', out));
    expect(result.status, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/0\/2 sessions finished; 2 failed mechanically\./);
    expect(result.stderr).toMatch(/2 of 2 sessions did not finish \(exit status 3/);
    for (const seed of [2000, 2001]) expect(result.stderr).toMatch(new RegExp(`/seed-${seed} \\(failed mechanically: provider-error\\)`));

    const complete = runCliWith(env(), run('policy/eager', join(dir, 'complete')));
    expect(complete.status, complete.stderr).toBe(0);
    expect(complete.stderr).not.toMatch(/did not finish/);
  });

  it.each([
    ['under a file', () => join(writeAt('a-file'), 'run'), /a-file\/run: a part of the path is a file, not a directory \(ENOTDIR/],
    ['a file', () => writeAt('not-a-dir'), /not-a-dir: a file is where a directory belongs \(EEXIST/],
  ])('names the path and the cause when the run directory is %s, exit 2', (_, out, pattern) => {
    const result = runCliWith(env(), run('policy/eager', out()));
    expect(result.status, result.stderr).toBe(2);
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr).not.toMatch(/internal error/);
  });

  it('stops at a full disk (a file-size limit) with one line naming the file, exit 2, and what was recorded stays readable', async () => {
    const out = join(dir, 'full');
    // 24 KiB per file: the manifest and the stream fit, the transcript fills within a few turns.
    const limited = spawnSync(
      'bash',
      [
        '-c',
        'ulimit -f 24 && exec "$@"',
        'bash',
        process.execPath,
        '--no-node-snapshot',
        cliPath(),
        ...run('policy/commit-at-99', out, '2000'),
      ],
      { encoding: 'utf8', env: { ...process.env, ...env() }, timeout: 90_000 },
    );
    expect(limited.signal, 'the run hung at the full disk').toBeNull();
    expect(limited.status, limited.stderr).toBe(2);
    const errors = errorLines(limited.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`${out}/\\S+: file too large \\(over the file-size limit\\) \\(EFBIG`));

    // Without the limit, status reads the run (a torn last line is set aside), and the same command finishes it.
    const status = runCliWith(env(), ['status', out, '--json']);
    expect(status.status, status.stderr).toBe(0);
    const resumed = runCliWith(env(), run('policy/commit-at-99', out, '2000'));
    expect(resumed.status, resumed.stderr).toBe(0);
    const [spec] = expandSweep((await readManifest(openRunStore(out))).config);
    expect((await summaryOf(out, spec!)).termination).toBe('stream-end');
  });
});

function writeAt(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, 'not a directory');
  return path;
}

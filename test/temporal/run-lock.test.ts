import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STALE_AFTER_MS } from '../../run-store/file-lock.js';
import { runLockPath } from '../../run-store/run-lock.js';
import { freePort } from '../../infra/ports.js';
import { runCli, runCliWith } from '../cli/run-cli.js';
import { s3ServerForThisFile } from '../run-store/s3-server.js';
import { exited, killGroup, startCli, until } from './processes.js';

/*
 * A run directory is locked while a `run` or `sweep` uses it: a second command
 * on it is refused (and used to stop the first one's embedded server), a
 * stale lock is taken over, and the lock goes when the command ends, by a
 * signal too. Real CLI processes, each with its embedded Temporal server.
 */

const started: { kill: () => void }[] = [];
afterEach(() => {
  for (const process of started.splice(0)) process.kill();
});

const dir = mkdtempSync(join(tmpdir(), 'allocbench-lock-'));
const s3 = s3ServerForThisFile();
const runArgs = async (runDir: string, model = 'policy/commit-at-2?delay=150') => [
  'run',
  '--model',
  model,
  '--rung',
  'R0',
  '--seeds',
  '2000-2001',
  '--out',
  runDir,
  '--temporal-port',
  String(await freePort()),
];

/** A pid that no process has now: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

/** Runs `command` with `holder` stopped, so that however slowly `command` starts, the holder cannot finish and release its lock first. */
async function whileStopped<T>(holder: ChildProcess, command: () => Promise<T>): Promise<T> {
  process.kill(holder.pid as number, 'SIGSTOP');
  try {
    return await command();
  } finally {
    process.kill(holder.pid as number, 'SIGCONT');
  }
}

const stderrLines = (stderr: string) =>
  stderr
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('Sweep '));

describe('a run directory is locked while a command uses it', () => {
  it('refuses a second run on it, naming the holder, and lets the first one finish', async () => {
    const runDir = join(dir, 'busy');
    const first = startCli(await runArgs(runDir));
    started.push({ kill: () => killGroup(first) });
    await until(() => first.output().includes('Temporal Web UI'), 120_000, 'the first run to start its server');

    const second = await whileStopped(first, async () => runCli(...(await runArgs(runDir))));
    expect(second.status, second.stderr).toBe(2);
    expect(stderrLines(second.stderr)).toEqual([
      expect.stringMatching(new RegExp(`is in use by pid ${first.pid} on host ${hostname()} since \\d{4}-\\d\\d-\\d\\dT`)),
    ]);

    expect(await exited(first), first.output()).toBe(0);
    expect(first.output()).toMatch(/2\/2 sessions finished/);
    expect(existsSync(runLockPath(runDir))).toBe(false);
  });

  it('on S3: refuses a second run on the same location, naming the holder, and releases the lock when the first ends', async () => {
    const location = `${await s3.server.bucket('locked')}/busy`;
    const first = startCli(await runArgs(location), s3.server.env);
    started.push({ kill: () => killGroup(first) });
    await until(() => first.output().includes('Temporal Web UI'), 120_000, 'the first run to start its server');

    const second = await whileStopped(first, async () => runCliWith(s3.server.env, await runArgs(location)));
    expect(second.status, second.stderr).toBe(2);
    expect(stderrLines(second.stderr)).toEqual([expect.stringMatching(new RegExp(`is in use by pid ${first.pid} on host ${hostname()}`))]);

    expect(await exited(first), first.output()).toBe(0);
    const after = runCliWith(s3.server.env, await runArgs(location));
    expect(after.status, after.stderr).toBe(0);
    expect(after.stderr).not.toMatch(/took over/);
  });

  it('refuses a lock held on another host without touching anything', () => {
    const runDir = join(dir, 'elsewhere');
    mkdirSync(runDir);
    const lock = JSON.stringify({ pid: 1, host: 'another-host', since: '2026-01-01T00:00:00.000Z' });
    writeFileSync(runLockPath(runDir), lock);
    const { status, stderr } = runCli('run', '--model', 'policy/eager', '--rung', 'R0', '--seeds', '2000', '--out', runDir);
    expect(status, stderr).toBe(2);
    expect(stderrLines(stderr)).toEqual([expect.stringMatching(/in use by pid 1 on host another-host since 2026-01-01T00:00:00\.000Z/)]);
    expect(readFileSync(runLockPath(runDir), 'utf8')).toBe(lock);
    expect(existsSync(join(runDir, 'manifest.json'))).toBe(false);
  });

  it('takes over a lock held on another host that its holder stopped renewing (older than the age bound), with a note', async () => {
    const runDir = join(dir, 'abandoned-elsewhere');
    mkdirSync(runDir);
    writeFileSync(runLockPath(runDir), JSON.stringify({ pid: 1, host: 'another-host', since: '2026-01-01T00:00:00.000Z' }));
    const unrenewed = new Date(Date.now() - STALE_AFTER_MS - 1000);
    utimesSync(runLockPath(runDir), unrenewed, unrenewed);
    const { status, stderr } = runCli(...(await runArgs(runDir, 'policy/eager')));
    expect(status, stderr).toBe(0);
    expect(stderr).toMatch(/took over the stale lock of .*abandoned-elsewhere: pid 1 on host another-host since .*, not renewed for 60 s/);
    expect(existsSync(runLockPath(runDir))).toBe(false);
  });

  it('takes over a stale lock (its process gone) with a note, and releases it at the end', async () => {
    const runDir = join(dir, 'stale');
    mkdirSync(runDir);
    const pid = deadPid();
    writeFileSync(runLockPath(runDir), JSON.stringify({ pid, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const { status, stderr } = runCli(...(await runArgs(runDir, 'policy/eager')));
    expect(status, stderr).toBe(0);
    expect(stderr).toMatch(
      new RegExp(`took over the stale lock of .*stale: pid ${pid} on host ${hostname()} since 2026-01-01T00:00:00\\.000Z, which is gone`),
    );
    expect(existsSync(runLockPath(runDir))).toBe(false);
  });

  it('releases the lock when the command is stopped by SIGTERM, so the run can be resumed', async () => {
    const runDir = join(dir, 'stopped');
    const args = await runArgs(runDir);
    const first = startCli(args);
    started.push({ kill: () => killGroup(first) });
    await until(() => first.output().includes('Temporal Web UI'), 120_000, 'the run to start its server');
    expect(existsSync(runLockPath(runDir))).toBe(true);
    first.kill('SIGTERM');
    await exited(first);
    expect(first.signalCode).toBe('SIGTERM');
    expect(existsSync(runLockPath(runDir))).toBe(false);

    const resumed = runCli(...args);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toMatch(/took over/);
    expect(resumed.stderr).toMatch(/2\/2 sessions finished/);
  });
});

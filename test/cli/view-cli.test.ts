import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionDirName, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { runLayout } from '../../run-store/run-layout.js';
import { acquireRunLock } from '../../run-store/run-lock.js';
import { serverForThisFile } from '../temporal/harness.js';
import { exited, killGroup, startCli, until } from '../temporal/processes.js';
import { runCli, runCliWith } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-view-cli-'));
/** The sweeps that make runs under a viewer go through the shared Temporal server. */
const temporal = serverForThisFile();
let occupied: Server | undefined;
const started: ChildProcess[] = [];

afterAll(() => {
  occupied?.close();
  for (const child of started) killGroup(child);
});

/** Hang guards for a busy 2-core machine, not speed checks. */
const SERVING = 60_000;
const SWEEPING = 180_000;

/** A failed start is one line on stderr, no stack, exit 2. */
function expectOneLine(result: { status: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('allocbench view: bad input', () => {
  it('refuses a directory that is not a run and holds none', () => {
    const empty = join(dir, 'not-a-run');
    mkdirSync(join(empty, 'sessions'), { recursive: true });
    expectOneLine(runCli('view', empty, '--port', '0'), /not-a-run: not a run directory \(no manifest.json\) and holds none/);
  });

  it('refuses an S3 prefix it has no credentials for', () => {
    const result = runCliWith(
      {
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_SESSION_TOKEN: '',
        AWS_PROFILE: '',
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
        AWS_CONFIG_FILE: join(dir, 'none'),
        AWS_EC2_METADATA_DISABLED: 'true',
        // Nothing listens here: a request that went out anyway would fail otherwise than on credentials.
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      },
      ['view', 's3://allocbench-view/runs', '--port', '0'],
    );
    expectOneLine(result, /s3:\/\/allocbench-view\/runs.*CredentialsProviderError/);
  });

  it('refuses a port in use', async () => {
    const run = join(dir, 'run');
    writeSyntheticRun(run, { name: 'view-cli', models: ['policy/eager'], rungs: ['R0'], seeds: [2000], stream: { length: 12 } });
    occupied = createServer();
    const port = await new Promise<number>((resolve) =>
      (occupied as Server).listen(0, '127.0.0.1', () => resolve(((occupied as Server).address() as { port: number }).port)),
    );
    expectOneLine(runCli('view', run, '--port', String(port)), new RegExp(`port ${port} on 127.0.0.1 is in use; pick another with --port`));
  });

  it('refuses a port that is not one', () => {
    expectOneLine(runCli('view', join(dir, 'run'), '--port', 'eighty'), /--port: 'eighty' is not a port/);
  });
});

/** `allocbench view` as a user starts it, on a free port: its address once it serves, and what it has said on stderr. */
async function startView(args: readonly string[], cwd?: string): Promise<{ url: string; stderr: () => string; child: ChildProcess }> {
  const child = startCli(['view', ...args, '--port', '0'], {}, cwd);
  started.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await until(() => /at http:\/\/\S+/.test(child.output()) || child.exitCode !== null, SERVING, 'allocbench view to serve');
  const url = /at (http:\/\/\S+)/.exec(child.output())?.[1];
  if (!url) throw new Error(`allocbench view did not start: ${child.output()}`);
  return { url, stderr: () => stderr, child };
}

/** `allocbench sweep` of a sweep file written for it, through the test's Temporal server. */
function startSweep(config: Record<string, unknown>, out: string): ChildProcess & { output: () => string } {
  const file = join(dir, `${String(config.name)}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = startCli(['sweep', file, '--out', out], temporal.env);
  started.push(child);
  return child;
}

const statusOf = async (url: string) => (await fetch(url)).status;

describe('allocbench view follows the disk', () => {
  it('lists and serves a run made after it started with no argument (./runs)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'allocbench-view-cwd-'));
    const panel = { models: ['policy/eager'], rungs: ['R0'], seeds: [2000], stream: { length: 12 } };
    writeSyntheticRun(join(cwd, 'runs', 'before'), { name: 'before', ...panel });
    const viewer = await startView([], cwd);
    expect(await statusOf(`${viewer.url}/runs/before`)).toBe(200);
    expect(await statusOf(`${viewer.url}/runs/after`)).toBe(404);
    writeSyntheticRun(join(cwd, 'runs', 'after'), { name: 'after', ...panel });
    await until(async () => (await statusOf(`${viewer.url}/runs/after`)) === 200, SERVING, 'the new run to be served');
    expect(await (await fetch(viewer.url)).text()).toContain('href="/runs/after"');
    expect(viewer.stderr()).toBe('');
  });

  it('waits for a run directory that does not exist yet, saying so, and serves the run once a sweep makes it', async () => {
    const out = join(dir, 'later', 'demo');
    const viewer = await startView([out]);
    expect(viewer.stderr()).toBe(`${out}: no run there yet; waiting for it (Ctrl-C stops)\n`);
    expect(await (await fetch(viewer.url)).text()).toContain(`${out}: no run there yet; waiting for it`);
    const sweep = startSweep(
      { name: 'later', models: ['policy/commit-at-2'], rungs: ['R0'], seeds: [2000, 2001], stream: { length: 12 } },
      out,
    );
    expect(await exited(sweep), sweep.output()).toBe(0);
    await until(async () => (await statusOf(`${viewer.url}/runs/later`)) === 200, SERVING, 'the run to be served');
    await until(
      async () =>
        ((await (await fetch(`${viewer.url}/api/runs/later/live`)).json()) as { fields: { finished: string } }).fields.finished === '2/2',
      SERVING,
      'its sessions to be read as finished',
    );
    const runs = await (await fetch(viewer.url)).text();
    expect(runs).toContain('href="/runs/later"');
    expect(runs).not.toContain('waiting for it');
    expect(viewer.child.exitCode).toBeNull();
  });

  it('waits, too, where a sweep is making a run: its lock taken, its manifest not written yet', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'allocbench-view-making-'));
    const making = join(parent, 'demo');
    const lock = acquireRunLock(making, () => undefined);
    try {
      for (const location of [making, parent]) {
        const viewer = await startView([location]);
        expect(viewer.stderr()).toBe(`${location}: no run there yet; waiting for it (Ctrl-C stops)\n`);
      }
    } finally {
      lock.release();
    }
  });

  it("appends a session's turns as it writes them, and shows how it ended, to a page that follows it", async () => {
    const out = join(dir, 'followed');
    const config = { name: 'followed', models: ['policy/commit-at-2?delay=400'], rungs: ['R0'], seeds: [2000], stream: { length: 12 } };
    const folder = sessionDirName(expandSweep(parseSweepConfig(config))[0] as SessionSpec);
    const sweep = startSweep(config, out);
    await until(() => existsSync(runLayout.transcript(out, folder)), SWEEPING, 'the session to begin');
    const viewer = await startView([out]);
    const page = await (await fetch(`${viewer.url}/runs/followed/sessions/${folder}`)).text();
    expect(page).toContain(`data-follow="/api/runs/followed/sessions/${folder}/live"`);
    // What the page's script does: ask from the entries it holds as settled, replace those after them with the answer's.
    type Update = { facts: string; from: number; entries: string[]; settled: number; count: number; following: boolean };
    const read = async (from: number) =>
      (await (await fetch(`${viewer.url}/api/runs/followed/sessions/${folder}/live?from=${from}`)).json()) as Update;
    let update = await read(0);
    let entries = update.entries;
    const counts = [update.count];
    while (update.following) {
      const before = update.count;
      await until(
        async () => {
          update = await read(update.settled);
          entries = [...entries.slice(0, update.from), ...update.entries];
          return update.count !== before || !update.following;
        },
        SWEEPING,
        'the session to write',
      );
      counts.push(update.count);
    }
    expect(await exited(sweep), sweep.output()).toBe(0);
    expect(counts.length, `entries at each read: ${counts.join(', ')}`).toBeGreaterThan(2);
    expect(update.facts).toMatch(/<b>finished<\/b> · termination <b>stream-end<\/b>/);
    expect(entries.at(-1)).toMatch(/Ended: <b>stream-end<\/b>/);
    // Read piece by piece, the conversation is the one read whole.
    expect(entries).toEqual((await read(0)).entries);
  });
});

import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { freePort } from '../../infra/ports.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { runParts } from '../../run-store/run-layout.js';
import { runCliWith } from '../cli/run-cli.js';
import { exited, killGroup, startCli, until } from '../temporal/processes.js';
import { s3ServerForThisFile } from './s3-server.js';

/*
 * The same sweep on disk and on a real S3 server (moto, on loopback), with
 * the built CLI and its embedded Temporal server: the S3 run completes,
 * resumes after its process is killed mid-run, reads the same in status, and
 * analyze writes the same tables from either. A damaged summary is one line
 * in status and one exclusion in analyze.
 */

const s3 = s3ServerForThisFile();
const dir = mkdtempSync(join(tmpdir(), 'allocbench-s3-sweep-'));
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

const runArgs = async (out: string) => [
  'run',
  '--model',
  'policy/commit-at-2?delay=40',
  '--rung',
  'R1',
  '--seeds',
  '2000-2003',
  '--out',
  out,
  '--temporal-port',
  String(await freePort()),
];
const cli = (...args: string[]) => runCliWith(s3.server.env, args);
const tables = (reportDir: string) =>
  Object.fromEntries(
    readdirSync(join(reportDir, 'tables'))
      .sort()
      .map((file) => [file, readFileSync(join(reportDir, 'tables', file), 'utf8')]),
  );

describe('a sweep on S3-compatible object storage', () => {
  it('completes, resumes after a kill, and gives the same status and analysis as on disk', async () => {
    const onDisk = join(dir, 'store-demo');
    const disk = cli(...(await runArgs(onDisk)));
    expect(disk.status, disk.stderr).toBe(0);

    const location = `${await s3.server.bucket('sweeps')}/team/store-demo`;
    // Killed mid-run (a worker or a laptop lost), then run again: the run resumes from what the bucket holds.
    const first = startCli(await runArgs(location), s3.server.env);
    cleanups.push(() => killGroup(first));
    const store = openRunStore(location);
    await until(async () => (await store.readManifest()) !== undefined, 120_000, 'the manifest on S3');
    const [spec] = expandSweep(parseSweepConfig((await store.readManifest())?.config));
    if (!spec) throw new Error('no session');
    await until(async () => (await store.readTranscript(spec)).turns.length >= 2, 120_000, 'two turns on S3');
    killGroup(first);
    await exited(first);
    // Its lock names a process that is gone on this host: taken over at once, and said so (elsewhere it would expire).
    const resumed = cli(...(await runArgs(location)));
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`took over the stale lock of ${location}: pid ${first.pid} on host`);

    const statusOf = (run: string) => JSON.parse(cli('status', run, '--json').stdout) as { runs: Record<string, unknown>[] };
    const [diskStatus] = statusOf(onDisk).runs;
    const [s3Status] = statusOf(location).runs;
    expect({ ...s3Status, runDir: undefined }).toEqual({ ...diskStatus, runDir: undefined });
    expect(s3Status).toMatchObject({ finished: 4, total: 4, runDir: location });

    const diskReport = join(dir, 'report-disk');
    const s3Report = join(dir, 'report-s3');
    expect(cli('analyze', onDisk, '--out', diskReport).status).toBe(0);
    const analyzed = cli('analyze', location, '--out', s3Report);
    expect(analyzed.status, analyzed.stderr).toBe(0);
    expect(tables(s3Report)).toEqual(tables(diskReport));
    expect(Object.keys(tables(s3Report)).length).toBeGreaterThan(0);
    expect(readFileSync(join(s3Report, 'exclusions.md'), 'utf8')).toBe(readFileSync(join(diskReport, 'exclusions.md'), 'utf8'));

    const audit = cli('audit', location, '--json');
    expect(audit.status, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ sessions: 4 });
  });

  it('names a damaged summary in one line in status, and excludes its session once in analyze', async () => {
    const location = `${await s3.server.bucket('damaged')}/store-demo`;
    expect(cli(...(await runArgs(location))).status).toBe(0);
    const store = openRunStore(location);
    const [spec] = expandSweep(parseSweepConfig((await store.readManifest())?.config));
    if (!spec) throw new Error('no session');
    const where = store.where(runParts.summary(spec));
    const client = new S3Client({ endpoint: s3.server.endpoint, forcePathStyle: true, region: 'us-east-1' });
    await client.send(new PutObjectCommand({ Bucket: 'damaged', Key: where.slice('s3://damaged/'.length), Body: '{"sessionKey": "cut' }));
    client.destroy();

    const status = cli('status', location);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^allocbench: ${where.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid JSON, truncated or damaged \\(.*\\) \\(counted as unreadable\\)$`,
        ),
      ),
    ]);
    expect(status.stdout).toContain('3/4');
    const report = join(dir, 'report-damaged');
    expect(cli('analyze', location, '--out', report).status).toBe(0);
    const excluded = readFileSync(join(report, 'exclusions.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('- '));
    expect(excluded).toEqual([expect.stringContaining(`unreadable summary: ${where}`)]);
  });
});

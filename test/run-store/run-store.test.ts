import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { generateStream } from '../../core/stream/generate-stream.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionDirName } from '../../core/sweep/session-spec.js';
import { CorruptRunDataError } from '../../run-store/corrupt-data.js';
import { FsRunStore } from '../../run-store/fs-run-store.js';
import { claimRunDirectory, newManifest } from '../../run-store/manifest.js';
import { runLayout, runParts } from '../../run-store/run-layout.js';
import { RunLockedError } from '../../run-store/run-lock.js';
import type { RunStore } from '../../run-store/run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { objectRequests } from '../../run-store/s3-objects.js';
import { S3RunStore } from '../../run-store/s3-run-store.js';
import { readSweepSummaries } from '../../run-store/sweep-summaries.js';
import type { AttemptRecord, TranscriptRecord } from '../../run-store/transcript.js';
import { s3ServerForThisFile } from './s3-server.js';

/*
 * The two run stores keep the same guarantees, each by its own means: the
 * same tests on a directory and on a bucket of a real S3 server (moto, on
 * loopback). A store is opened twice where two processes would share a run:
 * two instances share nothing but the files or objects.
 */

const s3 = s3ServerForThisFile();
const root = mkdtempSync(join(tmpdir(), 'allocbench-store-'));
let runs = 0;

const kinds = {
  disk: async (): Promise<[RunStore, RunStore]> => {
    const dir = join(root, `run-${++runs}`);
    return [new FsRunStore(dir), new FsRunStore(dir)];
  },
  s3: async (): Promise<[RunStore, RunStore]> => {
    const location = `${await s3.server.bucket(`run-store-${++runs}`)}/runs/demo`;
    return [new S3RunStore(location), new S3RunStore(location)];
  },
};

const config = parseSweepConfig({ name: 'store-test', models: ['policy/commit-at-2'], rungs: ['R0'], seeds: [2000, 2001] });
const [spec, other] = expandSweep(config);
if (!spec || !other) throw new Error('two sessions expected');
const versions = { allocbench: 'test', node: process.version, temporalCli: 'test' };
const attempt = (t: number, costUsd: number): AttemptRecord => ({
  type: 'attempt',
  at: `2026-01-01T00:00:0${t}.000Z`,
  t,
  attempt: 1,
  activityAttempt: 1,
  latencyMs: 1,
  outcome: 'ok',
  usage: { inputTokens: 10 * t, outputTokens: 1, cachedInputTokens: 0 },
  usageEstimated: false,
  costUsd,
});
const start: TranscriptRecord = {
  type: 'session',
  at: '2026-01-01T00:00:00.000Z',
  sessionKey: 'k',
  spec,
  streamHash: 'h',
  system: 'sys',
  tools: [],
};

/** Puts raw bytes where a run part lives, on either store, as a crash or a hand edit would leave them. */
async function damage(store: RunStore, part: string, text: string): Promise<void> {
  if (store instanceof FsRunStore) return writeFileSync(store.where(part), text);
  const [, bucket, ...key] = store.where(part).replace('s3://', '/').split('/');
  const client = new S3Client({ endpoint: s3.server.endpoint, forcePathStyle: true, region: 'us-east-1' });
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key.join('/'), Body: text }));
  client.destroy();
}

/** The text at a run part, on either store. */
async function readPart(store: RunStore, part: string): Promise<string> {
  if (store instanceof FsRunStore) return readFileSync(store.where(part), 'utf8');
  const [, bucket, ...key] = store.where(part).replace('s3://', '/').split('/');
  const client = new S3Client({ endpoint: s3.server.endpoint, forcePathStyle: true, region: 'us-east-1' });
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key.join('/') }));
  const text = (await object.Body?.transformToString()) ?? '';
  client.destroy();
  return text;
}

describe.each(Object.keys(kinds) as (keyof typeof kinds)[])('the run store on %s', (kind) => {
  it('replaces a summary keeping each one it replaces beside it, numbered, none overwritten by two replacers at once', async () => {
    const [store, second] = await kinds[kind]();
    await store.appendTranscript(spec, start); // makes the session's folder on disk
    const summary = (n: number) => ({ sessionKey: 'k', finishedAt: `v${n}` }) as unknown as SessionSummary;
    const version = async (part: string) => (JSON.parse(await readPart(store, part)) as SessionSummary).finishedAt;
    await store.writeSummary(spec, summary(1));
    expect(await store.replaceSummary(spec, summary(2))).toBe(store.where(runParts.previousSummary(spec, 1)));
    expect(await version(runParts.previousSummary(spec, 1))).toBe('v1');
    expect((await store.readSummary(spec))?.finishedAt).toBe('v2');
    const kept = await Promise.all([store.replaceSummary(spec, summary(3)), second.replaceSummary(spec, summary(4))]);
    expect(kept.sort()).toEqual([2, 3].map((n) => store.where(runParts.previousSummary(spec, n))));
    expect(await version(runParts.previousSummary(spec, 1))).toBe('v1');
    expect(await version(runParts.previousSummary(spec, 2))).toBe('v2');
    expect(['v3', 'v4']).toContain((await store.readSummary(spec))?.finishedAt);
  });

  it('folds transcripts incrementally, and two writers interleave without losing or reordering a record', async () => {
    const [a, b] = await kinds[kind]();
    await a.appendTranscript(spec, start);
    expect((await b.readTranscript(spec)).start?.system).toBe('sys');
    // b appends after a read it made; a, which has not seen b's record, appends next: both land, in order.
    await b.appendTranscript(spec, attempt(1, 0.5));
    await a.appendTranscript(spec, attempt(2, 0.25));
    await Promise.all([a.appendTranscript(spec, attempt(3, 0.125)), b.appendTranscript(spec, attempt(4, 0.0625))]);
    for (const store of [a, b]) {
      const transcript = await store.readTranscript(spec);
      expect(transcript.records.map((r) => r.type)).toEqual(['session', 'attempt', 'attempt', 'attempt', 'attempt']);
      expect(transcript.records.slice(0, 3).map((r) => (r.type === 'attempt' ? r.t : 0))).toEqual([0, 1, 2]);
      expect(transcript.costUsd).toBe(0.9375);
    }
    expect(await a.readTranscriptRecords(spec)).toEqual((await b.readTranscript(spec)).records);
    expect(await a.hasTranscript(other)).toBe(false);
    expect(await a.hasTranscript(spec)).toBe(true);
  });

  it('reads a transcript on from where an earlier read ended (a viewer following a session)', async () => {
    const [writer, reader] = await kinds[kind]();
    const first = await reader.readTranscriptAsIs(spec);
    expect(first.records).toEqual([]);
    await writer.appendTranscript(spec, start);
    await writer.appendTranscript(spec, attempt(1, 0.5));
    const second = await reader.readTranscriptAsIs(spec, first.next);
    expect(second.records).toEqual([start, attempt(1, 0.5)]);
    await writer.appendTranscript(spec, attempt(2, 0.25));
    const third = await reader.readTranscriptAsIs(spec, second.next);
    expect(third.records).toEqual([attempt(2, 0.25)]);
    expect((await reader.readTranscriptAsIs(spec, third.next)).records).toEqual([]);
  });

  it('never stores a configured credential: records are redacted on the way in', async () => {
    const [store] = await kinds[kind]();
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'test-credential-0123456789';
    try {
      await store.appendTranscript(spec, { ...attempt(1, 0), outcome: 'transport-error', error: 'bad key test-credential-0123456789' });
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
    const [record] = await store.readTranscriptRecords(spec);
    expect(JSON.stringify(record)).not.toContain('credential-0123456789');
  });

  it('creates the manifest once: a second claim with other settings is refused, the same settings find the first', async () => {
    const [a, b] = await kinds[kind]();
    const first = await claimRunDirectory(a, config, versions);
    expect((await claimRunDirectory(b, config, versions)).createdAt).toBe(first.createdAt);
    const changed = parseSweepConfig({ ...config, seeds: [2000] });
    await expect(claimRunDirectory(b, changed, versions)).rejects.toThrow(/already holds sweep 'store-test' with different settings/);
    expect(await b.createManifest(newManifest(changed, versions))).toEqual(first);
  });

  it('keeps streams and summaries whole, and names a corrupt one in one line', async () => {
    const [store] = await kinds[kind]();
    const stream = generateStream(2000, spec.stream);
    await store.writeStream(stream);
    expect((await store.readStream(2000))?.hash).toBe(stream.hash);
    expect(await store.readStream(2001)).toBeUndefined();
    await store.appendTranscript(spec, start); // makes the session's folder on disk
    await damage(store, runParts.summary(spec), '{"sessionKey": "trunc');
    const readings = await readSweepSummaries(store, [spec, other]);
    expect(readings[1]).toEqual({ spec: other });
    const where = store.where(runParts.summary(spec)).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(readings[0]?.corrupt).toMatch(new RegExp(`^${where}: not valid JSON, truncated or damaged \\([^\n]+\\)$`));
    await damage(store, runParts.manifest, 'not json');
    await expect(store.readManifest()).rejects.toThrow(CorruptRunDataError);
    await expect(store.readManifest()).rejects.toThrow(store.where(runParts.manifest));
  });

  it('names a transcript record that is not JSON', async () => {
    const [store] = await kinds[kind]();
    await store.appendTranscript(spec, start);
    await store.appendTranscript(spec, attempt(1, 0));
    const garbage = kind === 'disk' ? runParts.transcriptFile(spec) : runParts.transcriptRecord(spec, 1);
    const text = kind === 'disk' ? `garbage\n${JSON.stringify(attempt(1, 0))}\n` : 'garbage';
    await damage(store, garbage, text);
    const fresh = kind === 'disk' ? new FsRunStore(store.location) : new S3RunStore(store.location);
    const error = await fresh.readTranscript(spec).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptRunDataError);
    expect((error as Error).message).toContain(store.where(garbage));
  });

  it('records each paid attempt in the ledger and sums the run', async () => {
    const [a, b] = await kinds[kind]();
    const entry = { at: 'x', session: 's', t: 1, costUsd: 0.5 };
    await a.recordCost(entry);
    expect(await b.costRecorded(entry)).toBe(true);
    expect(await b.costRecorded({ ...entry, t: 2 })).toBe(false);
    await b.recordCost({ ...entry, session: 'other', costUsd: 0.25 });
    expect(await a.runCostUsd()).toBe(0.75);
    expect(await b.readCosts()).toHaveLength(2);
  });

  it("keeps each worker's latest concurrency record per provider, replaced on each change", async () => {
    const [a, b] = await kinds[kind]();
    expect(await b.readConcurrency()).toEqual([]);
    const record = { provider: 'openai', worker: 'host-1:41', at: '2026-01-01T00:00:01.000Z', limit: 6, floor: 1, ceiling: 12 };
    const change = { at: record.at, from: 12, to: 6, cause: '429' };
    await a.writeConcurrency({ ...record, cuts: 1, throttled: 3, changes: [change] });
    await a.writeConcurrency({ ...record, limit: 3, cuts: 2, throttled: 4, changes: [change, { ...change, from: 6, to: 3 }] });
    await b.writeConcurrency({ ...record, worker: 'host/2:7', limit: 12, cuts: 0, throttled: 0, changes: [] });
    const read = await a.readConcurrency();
    expect(read.map((r) => [r.worker, r.limit, r.cuts, r.changes.length])).toEqual([
      ['host-1:41', 3, 2, 2],
      ['host/2:7', 12, 0, 0],
    ]);
  });

  it('locks the run: a second holder is refused, naming the first; released, it can be taken', async () => {
    const [a, b] = await kinds[kind]();
    const notes: string[] = [];
    const lock = await a.lock((line) => notes.push(line));
    const refused = await b.lock(() => undefined).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunLockedError);
    expect((refused as Error).message).toContain(`is in use by pid ${process.pid} on host ${hostname()}`);
    await lock.release();
    const again = await b.lock((line) => notes.push(line));
    await again.release();
    expect(notes).toEqual([]);
  });
});

describe('the S3 store by its own means', () => {
  it('takes over a lock whose holder stopped renewing it, and says so', async () => {
    const [store] = await kinds.s3();
    const stale = { pid: 1, host: 'gone-host', since: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T00:00:30.000Z', token: 't' };
    await damage(store, runParts.lock, JSON.stringify(stale));
    const notes: string[] = [];
    const lock = await store.lock((line) => notes.push(line));
    expect(notes).toEqual([expect.stringMatching(/^took over the expired lock of s3:\/\/.* pid 1 on host gone-host, not renewed since/)]);
    await lock.release();
  });

  it('costs one PUT per record written and one LIST per read that finds nothing new', async () => {
    const [a] = await kinds.s3();
    await a.appendTranscript(spec, start);
    await a.readTranscript(spec);
    const before = { ...objectRequests };
    await a.appendTranscript(spec, attempt(1, 0));
    await a.readTranscript(spec);
    expect({ put: objectRequests.put - before.put, list: objectRequests.list - before.list, get: objectRequests.get - before.get }).toEqual(
      {
        put: 1,
        list: 1,
        get: 0,
      },
    );
  });
});

describe('the disk store keeps its files as they were', () => {
  it('leaves a line being written to the next read on', async () => {
    const [store] = await kinds.disk();
    await store.appendTranscript(spec, start);
    const line = JSON.stringify(attempt(1, 0.5));
    appendFileSync(runLayout.transcript(store.location, spec), line.slice(0, 20));
    const cut = await store.readTranscriptAsIs(spec);
    expect(cut.records).toEqual([start]);
    expect(cut.torn).toMatchObject({ line: 2 });
    appendFileSync(runLayout.transcript(store.location, spec), `${line.slice(20)}\n`);
    expect(await store.readTranscriptAsIs(spec, cut.next)).toEqual({
      records: [attempt(1, 0.5)],
      torn: null,
      next: { offset: statSync(runLayout.transcript(store.location, spec)).size, line: 2 },
    });
  });

  it('writes one JSONL line per record and whole JSON files', async () => {
    const [store] = await kinds.disk();
    await store.appendTranscript(spec, start);
    expect(runLayout.transcript(store.location, spec)).toBe(join(store.location, 'sessions', sessionDirName(spec), 'transcript.jsonl'));
  });
});

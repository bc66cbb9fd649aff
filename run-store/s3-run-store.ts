import { createHash, randomUUID } from 'node:crypto';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Stream } from '../core/stream/stream.js';
import { redactRecord } from '../secrets/redact.js';
import { CorruptRunDataError, parseStored } from './corrupt-data.js';
import { START_OF_FILE } from './json-files.js';
import type { Manifest } from './manifest-record.js';
import { folderOf, previousSummaryNumber, runParts, type SessionName } from './run-layout.js';
import { childLocation } from './run-location.js';
import { RunLockedError } from './run-lock.js';
import type { ConcurrencyRecord, CostEntry, RunLock, RunStore, TranscriptPosition, WholeSession } from './run-store.js';
import { inBatches } from './in-batches.js';
import { ObjectPrefix } from './s3-objects.js';
import type { SessionSummary } from './session-summary.js';
import { parseStoredStream } from './stream-source.js';
import { TranscriptFold, type Transcript, type TranscriptRecord } from './transcript.js';

const FOLDED_TRANSCRIPTS = 64;

/** Objects fetched at once when a reader catches up on records. */
const PARALLEL_GETS = 16;

/** A lock not renewed for this long was left by a holder that died; the holder renews it every third of it. */
export const S3_LOCK_TTL_MS = 30_000;

interface S3LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly expiresAt: string;
  /** Tells this holder's lock from another's with the same pid and host. */
  readonly token: string;
}

/** A transcript folded so far: its records up to `count` (the key of the last is record `count`). */
interface Folded {
  readonly fold: TranscriptFold;
  count: number;
  /** Appends of this process to the transcript, one after another. */
  appending: Promise<void>;
}

/** Whether a process of this host runs (a holder's pid elsewhere cannot be asked). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock object's holder; undefined when damaged (it is always written whole, so never a holder's). */
function parseHolder(text: string): S3LockHolder | undefined {
  try {
    return JSON.parse(text) as S3LockHolder;
  } catch {
    return undefined;
  }
}

/** Whether a lock's holder still holds it: not past its expiry, and its process not gone where that can be asked. */
const holdsLock = (holder: S3LockHolder) =>
  Date.parse(holder.expiresAt) > Date.now() && !(holder.host === hostname() && !processRuns(holder.pid));

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const indexOfRecordKey = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1, -'.json'.length));

/**
 * A run in an S3-compatible bucket, under s3://bucket/prefix. S3 has no
 * append and no rename, so the file system's guarantees are kept by the
 * object store's own means: each transcript record is an object of its own,
 * record N of a session at sessions/<session>/transcript/<N>.json, created
 * only if absent (If-None-Match: *), so two writers never take one place and a
 * retried activity reads what an earlier attempt recorded before it pays for a
 * call; a reader lists the records after the last it folded and folds them in
 * key order; every object is written whole, so no partial record, summary or
 * manifest is ever visible; the manifest and streams are created only if
 * absent, and the lock is created the same way with an expiry its holder
 * renews.
 */
export class S3RunStore implements RunStore {
  private readonly objects: ObjectPrefix;
  private readonly transcripts = new Map<string, Folded>();
  private readonly costs = new Map<string, number>();

  constructor(readonly location: string) {
    this.objects = new ObjectPrefix(location);
  }

  get localStateDir(): string {
    const id = createHash('sha256').update(this.location).digest('hex').slice(0, 16);
    return join(homedir(), '.cache', 'allocbench', 'temporal', id);
  }

  where(part: string): string {
    return this.objects.where(part);
  }

  private async readJson<T>(part: string): Promise<T | undefined> {
    const found = await this.objects.get(part);
    return found && parseStored<T>(found.text, this.where(part));
  }

  async exists(): Promise<boolean> {
    return (await this.objects.list('', { limit: 1 })).length > 0;
  }

  readManifest(): Promise<Manifest | undefined> {
    return this.readJson<Manifest>(runParts.manifest);
  }

  async createManifest(manifest: Manifest): Promise<Manifest> {
    if (await this.objects.put(runParts.manifest, json(manifest), { ifNoneMatch: true })) return manifest;
    const existing = await this.readManifest();
    if (!existing) throw new CorruptRunDataError(this.where(runParts.manifest), 'refused as existing, then not found');
    return existing;
  }

  async replaceManifest(manifest: Manifest): Promise<void> {
    await this.objects.put(runParts.manifest, json(manifest));
  }

  async readStream(seed: number): Promise<Stream | undefined> {
    const found = await this.objects.get(runParts.stream(seed));
    return found && parseStoredStream(found.text, this.where(runParts.stream(seed)));
  }

  async writeStream(stream: Stream): Promise<void> {
    await this.objects.put(runParts.stream(stream.seed), json(stream), { ifNoneMatch: true });
  }

  /** The sessions this process folds, most recently used last; bounded, as a worker serves a window of sessions at a time. */
  private folded(session: SessionName): Folded {
    const name = folderOf(session);
    const entry = this.transcripts.get(name) ?? { fold: new TranscriptFold(), count: 0, appending: Promise.resolve() };
    this.transcripts.delete(name);
    this.transcripts.set(name, entry);
    if (this.transcripts.size > FOLDED_TRANSCRIPTS) this.transcripts.delete(this.transcripts.keys().next().value as string);
    return entry;
  }

  /** Folds the records written since this process last looked: one LIST, and one GET per record it has not seen. */
  private async catchUp(session: SessionName, entry: Folded): Promise<void> {
    const after = entry.count > 0 ? runParts.transcriptRecord(session, entry.count) : undefined;
    const keys = await this.objects.list(runParts.transcriptRecords(session), after ? { startAfter: after } : {});
    const records = await inBatches(keys, PARALLEL_GETS, async (key) => {
      const text = (await this.objects.get(key))?.text;
      if (text === undefined) throw new CorruptRunDataError(this.where(key), 'listed, then not found');
      return parseStored<TranscriptRecord>(text, this.where(key));
    });
    keys.forEach((key, at) => {
      const index = indexOfRecordKey(key);
      if (index !== entry.count + 1) throw new CorruptRunDataError(this.where(key), `record ${entry.count + 1} is missing before it`);
      entry.fold.add(records[at] as TranscriptRecord);
      entry.count = index;
    });
  }

  async readTranscript(session: SessionName): Promise<Transcript> {
    const entry = this.folded(session);
    await this.catchUp(session, entry);
    return entry.fold.snapshot();
  }

  /** One PUT: the next record's place, created only if absent; a place another writer took sends this one after the records it wrote. */
  appendTranscript(session: SessionName, record: TranscriptRecord): Promise<void> {
    const entry = this.folded(session);
    const text = JSON.stringify(redactRecord(record));
    const append = async () => {
      for (;;) {
        const index = entry.count + 1;
        if (await this.objects.put(runParts.transcriptRecord(session, index), text, { ifNoneMatch: true })) {
          entry.fold.add(JSON.parse(text) as TranscriptRecord);
          entry.count = index;
          return;
        }
        await this.catchUp(session, entry);
      }
    };
    const current = entry.appending.catch(() => undefined).then(append);
    entry.appending = current;
    return current;
  }

  async hasTranscript(session: SessionName): Promise<boolean> {
    return (await this.objects.list(runParts.transcriptRecords(session), { limit: 1 })).length > 0;
  }

  async readTranscriptRecords(session: SessionName): Promise<TranscriptRecord[]> {
    return (await this.readTranscriptAsIs(session)).records;
  }

  async readTranscriptAsIs(
    session: SessionName,
    from: TranscriptPosition = START_OF_FILE,
  ): Promise<{ records: TranscriptRecord[]; torn: null; next: TranscriptPosition }> {
    const entry: Folded = { fold: new TranscriptFold(), count: from.line, appending: Promise.resolve() };
    await this.catchUp(session, entry);
    return { records: [...entry.fold.records], torn: null, next: { offset: 0, line: entry.count } };
  }

  readSummary(session: SessionName): Promise<SessionSummary | undefined> {
    return this.readJson<SessionSummary>(runParts.summary(session));
  }

  async writeSummary(session: SessionName, summary: SessionSummary): Promise<void> {
    await this.objects.put(runParts.summary(session), json(summary));
  }

  /** The previous summary is copied under the next free number (created only if absent), then the summary replaced. */
  async replaceSummary(session: SessionName, summary: SessionSummary): Promise<string> {
    const current = await this.objects.get(runParts.summary(session));
    if (!current) throw new CorruptRunDataError(this.where(runParts.summary(session)), 'not found, so there is nothing to replace');
    const folder = runParts.session(session);
    const numbers = (await this.objects.list(runParts.previousSummaries(session))).map((key) =>
      previousSummaryNumber(key.slice(folder.length + 1)),
    );
    for (let n = Math.max(0, ...numbers.filter((m) => m !== undefined)) + 1; ; n++) {
      if (!(await this.objects.put(runParts.previousSummary(session, n), current.text, { ifNoneMatch: true }))) continue;
      await this.writeSummary(session, summary);
      return this.where(runParts.previousSummary(session, n));
    }
  }

  async removeSummary(session: SessionName): Promise<void> {
    await this.objects.delete(runParts.summary(session));
  }

  /** Created only if absent: the same attempt recorded twice (a retried activity) is one entry. */
  async recordCost(entry: CostEntry): Promise<void> {
    await this.objects.put(runParts.cost(entry.session, entry.t, entry.at, entry.role), JSON.stringify(entry), { ifNoneMatch: true });
  }

  async costRecorded(entry: CostEntry): Promise<boolean> {
    return (await this.objects.get(runParts.cost(entry.session, entry.t, entry.at, entry.role))) !== undefined;
  }

  async readCosts(): Promise<CostEntry[]> {
    const keys = await this.objects.list(runParts.costs);
    const found = await inBatches(keys, PARALLEL_GETS, (key) => this.objects.get(key));
    return found.flatMap((object, at) => (object ? [parseStored<CostEntry>(object.text, this.where(keys[at] as string))] : []));
  }

  /** One LIST of the ledger, and one GET per entry this process has not seen. */
  async runCostUsd(): Promise<number> {
    const keys = await this.objects.list(runParts.costs);
    const unseen = keys.filter((key) => !this.costs.has(key));
    await inBatches(unseen, PARALLEL_GETS, async (key) => {
      const found = await this.objects.get(key);
      this.costs.set(key, found ? parseStored<CostEntry>(found.text, this.where(key)).costUsd : 0);
    });
    return keys.reduce((sum, key) => sum + (this.costs.get(key) ?? 0), 0);
  }

  /** Each worker replaces only its own object. */
  async writeConcurrency(record: ConcurrencyRecord): Promise<void> {
    await this.objects.put(runParts.concurrency(record.provider, record.worker), json(record));
  }

  async readConcurrency(): Promise<ConcurrencyRecord[]> {
    const keys = await this.objects.list(runParts.concurrencyRecords);
    const found = await inBatches(keys, PARALLEL_GETS, (key) => this.objects.get(key));
    return found.flatMap((object, at) => (object ? [parseStored<ConcurrencyRecord>(object.text, this.where(keys[at] as string))] : []));
  }

  /**
   * run.lock, created only if absent, names its holder and an expiry the
   * holder renews (If-Match on its own version) every third of the TTL. A
   * lock past its expiry was left by a holder that died (as is one whose
   * process is gone on this host) and is taken over by replacing that very version; a holder that finds its lock replaced stops
   * renewing and says so.
   */
  async lock(note: (line: string) => void): Promise<RunLock> {
    const part = runParts.lock;
    const where = this.where(part);
    const token = randomUUID();
    const since = new Date().toISOString();
    const body = () =>
      json({
        pid: process.pid,
        host: hostname(),
        since,
        expiresAt: new Date(Date.now() + S3_LOCK_TTL_MS).toISOString(),
        token,
      } satisfies S3LockHolder);
    let etag: string | undefined;
    for (let tries = 0; etag === undefined; tries++) {
      etag = await this.objects.put(part, body(), { ifNoneMatch: true });
      if (etag !== undefined) break;
      const found = await this.objects.get(part);
      if (!found) continue; // released in the meantime
      const holder = parseHolder(found.text);
      const gone = holder !== undefined && holder.host === hostname() && !processRuns(holder.pid);
      if (holder && holdsLock(holder)) {
        throw new RunLockedError(
          `${this.location} is in use by pid ${holder.pid} on host ${holder.host} since ${holder.since} (${where}, renewed until ${holder.expiresAt}); wait for it to finish, or for the lock to expire if the process is gone`,
        );
      }
      if (tries >= 5) throw new RunLockedError(`${where}: cannot take over a stale lock (other commands keep taking it)`);
      etag = await this.objects.put(part, body(), { ifMatch: found.etag });
      if (etag !== undefined) {
        note(
          !holder
            ? `took over the unreadable lock of ${this.location} (${where})`
            : gone
              ? `took over the stale lock of ${this.location}: pid ${holder.pid} on host ${holder.host}, which is gone`
              : `took over the expired lock of ${this.location}: pid ${holder.pid} on host ${holder.host}, not renewed since ${holder.expiresAt}`,
        );
      }
    }
    let held = true;
    let renewing = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(async () => {
        if (!held) return;
        const next = await this.objects.put(part, body(), { ifMatch: etag as string }).catch(() => etag);
        if (next === undefined) {
          held = false;
          clearInterval(timer);
          note(`${where}: the lock was taken over by another command (this one did not renew it in time)`);
        } else etag = next;
      });
    }, S3_LOCK_TTL_MS / 3);
    timer.unref();
    return {
      where,
      release: async () => {
        clearInterval(timer);
        await renewing;
        if (!held) return;
        held = false;
        await this.objects.delete(part, etag);
      },
    };
  }

  async lockHolder(): Promise<string | undefined> {
    const found = await this.objects.get(runParts.lock);
    const holder = found && parseHolder(found.text);
    return holder && holdsLock(holder) ? `pid ${holder.pid} on host ${holder.host} since ${holder.since}` : undefined;
  }

  /** The manifest last: a location without one is not a run to anything that reads runs. */
  async writeWholeRun(manifest: Manifest, streams: readonly Stream[], sessions: readonly WholeSession[], replace: boolean): Promise<void> {
    if (!replace && (await this.objects.list('', { limit: 1 })).length > 0)
      throw new InputError(`${this.location}: exists and is not an import; choose another --out`);
    if (replace) {
      const keys = await this.objects.list('');
      await this.objects.delete(runParts.manifest);
      await inBatches(
        keys.filter((key) => key !== runParts.manifest),
        PARALLEL_GETS,
        (key) => this.objects.delete(key),
      );
    }
    await inBatches(streams, PARALLEL_GETS, (stream) => this.objects.put(runParts.stream(stream.seed), json(stream)));
    await inBatches(sessions, PARALLEL_GETS, async ({ summary, transcript }) => {
      const numbered = transcript.map((record, at) => ({ record, index: at + 1 }));
      await inBatches(numbered, PARALLEL_GETS, ({ record, index }) =>
        this.objects.put(runParts.transcriptRecord(summary.spec, index), JSON.stringify(record)),
      );
      await this.objects.put(runParts.summary(summary.spec), json(summary));
    });
    await this.objects.put(runParts.manifest, json(manifest));
  }
}

/** The folders directly under a location, or null when nothing is there (no object under its prefix). */
export async function objectStoreFoldersIn(location: string): Promise<string[] | null> {
  const root = new ObjectPrefix(location);
  if ((await root.list('', { limit: 1 })).length === 0) return null;
  return (await root.folders()).map((name) => childLocation(location, name));
}

/** The runs under an s3:// location: itself if it holds a manifest, else its folders that do, sorted; none if neither. */
export async function objectStoreRunsUnder(location: string): Promise<string[]> {
  const root = new ObjectPrefix(location);
  if ((await root.list(runParts.manifest, { limit: 1 })).includes(runParts.manifest)) return [location];
  const found: string[] = [];
  for (const name of await root.folders()) {
    if (name.startsWith('.')) continue;
    const child = `${location.replace(/\/+$/, '')}/${name}`;
    if ((await new ObjectPrefix(child).list(runParts.manifest, { limit: 1 })).includes(runParts.manifest)) found.push(child);
  }
  return found.sort();
}

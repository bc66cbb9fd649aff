import { existsSync, statSync } from 'node:fs';
import { link, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError } from '../core/errors.js';
import type { Stream } from '../core/stream/stream.js';
import { redactRecord } from '../secrets/redact.js';
import {
  appendJsonLine,
  readJsonIfExists,
  type AppendedLine,
  readJsonLines,
  readJsonLinesAfter,
  reportTornLine,
  START_OF_FILE,
  writeJsonAtomic,
  type LinePosition,
  type TornLine,
} from './json-files.js';
import type { Manifest } from './manifest-record.js';
import { previousSummaryNumber, runLayout, runParts, type SessionName } from './run-layout.js';
import { describeHolder, liveHolder } from './file-lock.js';
import { acquireRunLock, runLockPath } from './run-lock.js';
import type { ConcurrencyRecord, CostEntry, RunLock, RunStore, TranscriptPosition, WholeSession } from './run-store.js';
import type { SessionSummary } from './session-summary.js';
import { withFile } from './store-errors.js';
import { readStoredStream } from './stream-source.js';
import { TranscriptFold, type Transcript, type TranscriptRecord } from './transcript.js';

/** A folded transcript, where its file's intact part ended, and the file it was read from. */
interface Folded {
  readonly fold: TranscriptFold;
  next: LinePosition;
  readonly inode: number;
}

/**
 * Transcripts this process has read, by path, most recently used last: each
 * model call of a session reads only the lines appended since its previous
 * call, so a call costs the same at the end of a 300k-token session as at its
 * start, and what this process appends itself is folded as it is written,
 * never read back. A file that shrank (a torn line moved away) or was
 * replaced is read again from the start. Bounded: a worker serves a window of
 * sessions at a time (up to 512 here), and a session ended is let go.
 */
const folded = new Map<string, Folded>();
const FOLDED_TRANSCRIPTS = 1024;

/** Keeps a fold as the most recently used, letting the least recently used go past the bound. */
function remember(path: string, entry: Folded): void {
  folded.delete(path);
  folded.set(path, entry);
  if (folded.size > FOLDED_TRANSCRIPTS) folded.delete(folded.keys().next().value as string);
}

/** A transcript file, folded: only the lines appended since this process last read it are parsed. */
export async function readTranscriptFile(path: string): Promise<Transcript> {
  // Synchronous, as the appends are (json-files.ts): one per model call, a few µs of CPU instead of forty.
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) {
    folded.delete(path);
    return new TranscriptFold().snapshot();
  }
  let entry = folded.get(path);
  if (!entry || entry.inode !== info.ino || info.size < entry.next.offset) {
    entry = { fold: new TranscriptFold(), next: START_OF_FILE, inode: info.ino };
  }
  remember(path, entry);
  while (info.size > entry.next.offset) {
    const from = entry.next;
    const read = await readJsonLinesAfter<TranscriptRecord>(path, from);
    // Another read, or an append folded in, moved the fold on meanwhile: read again from where it is now.
    if (entry.next !== from) continue;
    for (const record of read.records) entry.fold.add(record);
    entry.next = read.next;
    if (read.torn) reportTornLine(read.torn);
    break;
  }
  return entry.fold.snapshot();
}

/** A line this process appended to a transcript it holds folded up to where the line begins: folded in without reading it back. */
function foldAppended(path: string, appended: AppendedLine): void {
  let entry = folded.get(path);
  if (!entry && appended.offset === 0) {
    entry = { fold: new TranscriptFold(), next: START_OF_FILE, inode: appended.inode };
    remember(path, entry);
  }
  if (!entry || entry.inode !== appended.inode || entry.next.offset !== appended.offset) return;
  const record = JSON.parse(appended.text) as TranscriptRecord;
  entry.fold.add(record);
  entry.next = { offset: appended.end, line: entry.next.line + 1 };
  if (record.type === 'end') folded.delete(path);
}

/** Running totals of cost ledgers, by path: each read reads only what was appended since. */
const costTotals = new Map<string, { next: LinePosition; total: number }>();

/** Temporary directories of whole-run writes, marked with the writing process's id. */
const writing = (name: string) => new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:importing|replaced)-(\\d+)$`);

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A run directory on a file system (shared storage, for a cluster): JSONL
 * files that grow by appended lines, whole files replaced atomically (write,
 * then rename), and an exclusively created lock file.
 */
export class FsRunStore implements RunStore {
  constructor(readonly location: string) {}

  get localStateDir(): string {
    return runLayout.temporal(this.location);
  }

  where(part: string): string {
    return join(this.location, part);
  }

  async exists(): Promise<boolean> {
    return existsSync(this.location);
  }

  readManifest(): Promise<Manifest | undefined> {
    return readJsonIfExists<Manifest>(runLayout.manifest(this.location));
  }

  async createManifest(manifest: Manifest): Promise<Manifest> {
    const existing = await this.readManifest();
    if (existing) return existing;
    const path = runLayout.manifest(this.location);
    await withFile(path, () => writeJsonAtomic(path, manifest));
    return manifest;
  }

  replaceManifest(manifest: Manifest): Promise<void> {
    const path = runLayout.manifest(this.location);
    return withFile(path, () => writeJsonAtomic(path, manifest));
  }

  async readStream(seed: number): Promise<Stream | undefined> {
    const path = runLayout.stream(this.location, seed);
    return existsSync(path) ? readStoredStream(path) : undefined;
  }

  async writeStream(stream: Stream): Promise<void> {
    const path = runLayout.stream(this.location, stream.seed);
    if (!existsSync(path)) await withFile(path, () => writeJsonAtomic(path, stream));
  }

  readTranscript(session: SessionName): Promise<Transcript> {
    return readTranscriptFile(runLayout.transcript(this.location, session));
  }

  async appendTranscript(session: SessionName, record: TranscriptRecord): Promise<void> {
    const path = runLayout.transcript(this.location, session);
    const appended = await withFile(path, () => appendJsonLine(path, redactRecord(record)));
    if (appended) foldAppended(path, appended);
  }

  async hasTranscript(session: SessionName): Promise<boolean> {
    return existsSync(runLayout.transcript(this.location, session));
  }

  readTranscriptRecords(session: SessionName): Promise<TranscriptRecord[]> {
    return readJsonLines<TranscriptRecord>(runLayout.transcript(this.location, session));
  }

  readTranscriptAsIs(
    session: SessionName,
    from: TranscriptPosition = START_OF_FILE,
  ): Promise<{ records: TranscriptRecord[]; torn: TornLine | null; next: TranscriptPosition }> {
    return readJsonLinesAfter<TranscriptRecord>(runLayout.transcript(this.location, session), from);
  }

  readSummary(session: SessionName): Promise<SessionSummary | undefined> {
    return readJsonIfExists<SessionSummary>(runLayout.summary(this.location, session));
  }

  writeSummary(session: SessionName, summary: SessionSummary): Promise<void> {
    const path = runLayout.summary(this.location, session);
    return withFile(path, () => writeJsonAtomic(path, summary));
  }

  /** The previous summary is kept by a hard link under the next free number (link refuses a name that exists), then the summary replaced. */
  async replaceSummary(session: SessionName, summary: SessionSummary): Promise<string> {
    const path = runLayout.summary(this.location, session);
    const folder = runLayout.session(this.location, session);
    const numbers = (await withFile(folder, () => readdir(folder))).map(previousSummaryNumber).filter((n) => n !== undefined);
    for (let n = Math.max(0, ...numbers) + 1; ; n++) {
      const kept = join(this.location, runParts.previousSummary(session, n));
      try {
        await withFile(kept, () => link(path, kept));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw error;
      }
      await this.writeSummary(session, summary);
      return kept;
    }
  }

  removeSummary(session: SessionName): Promise<void> {
    const path = runLayout.summary(this.location, session);
    return withFile(path, () => rm(path, { force: true }));
  }

  async recordCost(entry: CostEntry): Promise<void> {
    const path = runLayout.costs(this.location);
    await withFile(path, () => appendJsonLine(path, entry));
  }

  async costRecorded(entry: CostEntry): Promise<boolean> {
    const entries = await readJsonLines<CostEntry>(runLayout.costs(this.location));
    return entries.some((e) => e.session === entry.session && e.t === entry.t && e.at === entry.at && e.role === entry.role);
  }

  readCosts(): Promise<CostEntry[]> {
    return readJsonLines<CostEntry>(runLayout.costs(this.location));
  }

  /** A line another worker is still writing waits for the next read. */
  async runCostUsd(): Promise<number> {
    const path = runLayout.costs(this.location);
    const known = costTotals.get(path) ?? { next: START_OF_FILE, total: 0 };
    const read = await readJsonLinesAfter<CostEntry>(path, known.next);
    const total = read.records.reduce((sum, entry) => sum + entry.costUsd, known.total);
    costTotals.set(path, { next: read.next, total });
    return total;
  }

  writeConcurrency(record: ConcurrencyRecord): Promise<void> {
    const path = runLayout.concurrency(this.location, record.provider, record.worker);
    return withFile(path, () => writeJsonAtomic(path, record));
  }

  async readConcurrency(): Promise<ConcurrencyRecord[]> {
    const folder = runLayout.concurrencyRecords(this.location);
    if (!existsSync(folder)) return [];
    const names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
    const records = await Promise.all(names.map((name) => readJsonIfExists<ConcurrencyRecord>(join(folder, name))));
    return records.filter((record) => record !== undefined);
  }

  async lock(note: (line: string) => void): Promise<RunLock> {
    const lock = acquireRunLock(this.location, note);
    return { where: lock.path, release: async () => lock.release() };
  }

  async lockHolder(): Promise<string | undefined> {
    const holder = liveHolder(runLockPath(this.location));
    return holder && describeHolder(holder);
  }

  /** Written to a temporary directory renamed into place: a run directory is never seen half written. */
  async writeWholeRun(manifest: Manifest, streams: readonly Stream[], sessions: readonly WholeSession[], replace: boolean): Promise<void> {
    const outDir = dirname(this.location);
    const name = this.location.slice(outDir.length + 1);
    if (!replace && existsSync(this.location)) throw new InputError(`${this.location}: exists and is not an import; choose another --out`);
    const temporary = join(outDir, `.${name}.importing-${process.pid}`);
    await removeAbandoned(outDir, name);
    const write = async (path: string, text: string) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    };
    const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
    try {
      for (const stream of streams) await write(runLayout.stream(temporary, stream.seed), json(stream));
      for (const { summary, transcript } of sessions) {
        await write(runLayout.summary(temporary, summary.spec), json(summary));
        await write(runLayout.transcript(temporary, summary.spec), transcript.map((record) => JSON.stringify(record)).join('\n') + '\n');
      }
      // The manifest last: a directory without one is not a run directory to anything that reads runs.
      await write(runLayout.manifest(temporary), json(manifest));
      if (replace && existsSync(this.location)) {
        const old = join(outDir, `.${name}.replaced-${process.pid}`);
        await rename(this.location, old);
        await rename(temporary, this.location);
        await rm(old, { recursive: true, force: true });
        return;
      }
      await rename(temporary, this.location);
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }
}

/** Temporary directories an earlier whole-run write left when it was killed (its process is gone). */
async function removeAbandoned(outDir: string, name: string): Promise<void> {
  if (!existsSync(outDir)) return;
  const pattern = writing(name);
  for (const entry of await readdir(outDir)) {
    const pid = Number(pattern.exec(entry)?.[1]);
    if (pid && (pid === process.pid || !isRunning(pid))) await rm(join(outDir, entry), { recursive: true, force: true });
  }
}

/** The run directories under a directory: itself if it holds a manifest, else its children that do, sorted; none if neither. */
export async function runDirectoriesUnder(path: string): Promise<string[]> {
  if (existsSync(runLayout.manifest(path))) return [path];
  if (!existsSync(path)) return [];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(join(path, entry.name, runParts.manifest)))
    .map((entry) => join(path, entry.name))
    .sort();
}

/** The folders directly in a directory, or null when nothing is there (no such directory, or an empty one). */
export async function foldersIn(path: string): Promise<string[] | null> {
  if (!existsSync(path)) return null;
  const entries = await readdir(path, { withFileTypes: true });
  if (entries.length === 0) return null;
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(path, entry.name));
}

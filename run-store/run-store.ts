import type { SplitRole } from '../core/rungs/rung.js';
import type { Stream } from '../core/stream/stream.js';
import type { LinePosition, TornLine } from './json-files.js';
import type { Manifest } from './manifest-record.js';
import type { SessionName } from './run-layout.js';
import type { SessionSummary } from './session-summary.js';
import type { Transcript, TranscriptRecord } from './transcript.js';

/** Where a read of a transcript ended: a byte offset and the lines before it in a file; in an object store, the records before it (as lines, no bytes). */
export type TranscriptPosition = LinePosition;

/** One paid attempt in the run's cost ledger, so the run cost cap is checked without reading every transcript. */
export interface CostEntry {
  readonly at: string;
  readonly session: string;
  readonly t: number;
  /** A split agent's call: t is that role's turn or model call. */
  readonly role?: SplitRole;
  readonly costUsd: number;
}

/**
 * One worker's adaptive concurrency limit for one provider, as it last changed
 * (activities/providers/adaptive-concurrency.ts): written by the worker on
 * each change, replacing its previous one, and shown by `allocbench status`.
 */
export interface ConcurrencyRecord {
  readonly provider: string;
  /** host:pid of the worker process. */
  readonly worker: string;
  /** When the limit last changed. */
  readonly at: string;
  readonly limit: number;
  readonly floor: number;
  readonly ceiling: number;
  readonly cuts: number;
  readonly throttled: number;
  /** The latest changes, oldest first. */
  readonly changes: readonly { readonly at: string; readonly from: number; readonly to: number; readonly cause: string }[];
}

/** The run's lock, held by one `run` or `sweep` at a time. */
export interface RunLock {
  /** The lock file's path or object's address. */
  readonly where: string;
  /** Gives the lock up (idempotent). */
  release(): Promise<void>;
}

/** A whole session as an import writes it. */
export interface WholeSession {
  readonly summary: SessionSummary;
  readonly transcript: readonly TranscriptRecord[];
}

/**
 * A run's store: every read and write of a run goes through one of these,
 * on a file system (FsRunStore) or on S3-compatible object storage
 * (S3RunStore); the same sweep runs on either. A file or object that is there
 * but cannot be read is a CorruptRunDataError naming it.
 */
export interface RunStore {
  /** An absolute directory, or s3://bucket/prefix. */
  readonly location: string;
  /** The file path or s3:// address of a part of the run (runParts), for messages. */
  where(part: string): string;

  /** Whether anything is at the location (a directory, or an object under the prefix). */
  exists(): Promise<boolean>;
  /** The manifest, if the run has one. */
  readManifest(): Promise<Manifest | undefined>;
  /** Writes the manifest unless the run has one already; returns the one that stands (the caller compares it). */
  createManifest(manifest: Manifest): Promise<Manifest>;
  /** Replaces the manifest whole (a later invocation's limits, under the run's lock). */
  replaceManifest(manifest: Manifest): Promise<void>;

  /** The run's copy of a seed's stream, checked against its hash; undefined if there is none. */
  readStream(seed: number): Promise<Stream | undefined>;
  /** Writes a seed's stream unless the run has one already. */
  writeStream(stream: Stream): Promise<void>;

  /** The transcript so far (empty if none), folded incrementally: a later read reads only records written since. */
  readTranscript(session: SessionName): Promise<Transcript>;
  /** Appends one record, redacted (no configured credential, in any form, is ever stored). */
  appendTranscript(session: SessionName, record: TranscriptRecord): Promise<void>;
  /** Whether the session has begun (its transcript exists). */
  hasTranscript(session: SessionName): Promise<boolean>;
  /** Every record, read afresh (a report, an audit), without the writers' fold. */
  readTranscriptRecords(session: SessionName): Promise<TranscriptRecord[]>;
  /**
   * The same from `from` on (the start when left out), and the final line cut
   * short if there is one (a line being written as it is read, or a crash),
   * unreported: the viewer shows it with the session. Object storage writes
   * each record whole, so none there. `next`: where the intact records end, for
   * a later read to go on from (a viewer following a session in flight).
   */
  readTranscriptAsIs(
    session: SessionName,
    from?: TranscriptPosition,
  ): Promise<{ records: TranscriptRecord[]; torn: TornLine | null; next: TranscriptPosition }>;

  readSummary(session: SessionName): Promise<SessionSummary | undefined>;
  /** Replaces the summary whole: no reader ever sees part of one. */
  writeSummary(session: SessionName, summary: SessionSummary): Promise<void>;
  /**
   * Replaces the summary whole, first keeping the one it replaces beside it as
   * summary.prev-<N>.json, N one more than the highest kept (created only if
   * absent: no earlier one is ever overwritten). Returns where the previous one is kept.
   */
  replaceSummary(session: SessionName, summary: SessionSummary): Promise<string>;
  /** Removes the summary, if there is one: a session run again after it was stopped is in flight, not stopped. */
  removeSummary(session: SessionName): Promise<void>;

  recordCost(entry: CostEntry): Promise<void>;
  /** Whether this attempt's cost is on the ledger (same session, turn and time). */
  costRecorded(entry: CostEntry): Promise<boolean>;
  /** Every entry of the ledger (an audit, a test). */
  readCosts(): Promise<CostEntry[]>;
  /** USD spent so far by every worker of the run. */
  runCostUsd(): Promise<number>;

  /** Replaces this worker's record for the provider. */
  writeConcurrency(record: ConcurrencyRecord): Promise<void>;
  /** Every worker's latest record, per provider. */
  readConcurrency(): Promise<ConcurrencyRecord[]>;

  /** Takes the run's lock, or throws RunLockedError naming the holder; a stale lock is taken over and `note` told. */
  lock(note: (line: string) => void): Promise<RunLock>;
  /** Who holds the run's lock now (a command running the run), in a few words; undefined when no live command does. */
  lockHolder(): Promise<string | undefined>;

  /**
   * Writes a whole run at once (an import): nothing half-written is ever
   * visible as a run, since the manifest comes last; `replace` removes what
   * the location held before, and without it a location that holds anything
   * is refused.
   */
  writeWholeRun(manifest: Manifest, streams: readonly Stream[], sessions: readonly WholeSession[], replace: boolean): Promise<void>;

  /** Where this machine keeps the embedded Temporal server's state for this run. */
  readonly localStateDir: string;
}

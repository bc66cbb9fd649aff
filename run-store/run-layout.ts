import { join } from 'node:path';
import type { SplitRole } from '../core/rungs/rung.js';
import { sessionDirName, type SessionSpec } from '../core/sweep/session-spec.js';

/**
 * Where things live in a run, relative to its location (a directory, or a
 * prefix in a bucket):
 *   manifest.json                          the sweep's exact settings and experiment hash
 *   streams/seed-<S>.json                  each stream, with its hash
 *   sessions/<session>/transcript.jsonl    every prompt, reply, tool call, attempt and usage, a line each (file system)
 *   sessions/<session>/transcript/<N>.json the same records, one object each, N = 1, 2, … (object storage)
 *   sessions/<session>/summary.json        decisions, metrics, termination, usage
 *   sessions/<session>/summary.prev-<N>.json  the summaries `allocbench rescore` replaced, N = 1, 2, … (the highest the latest)
 *   costs.jsonl                            one line per paid attempt of the run (file system)
 *   costs/<session>/[<role>-]<t>-<time>.json the same entries, one object each (object storage); role: a split agent's
 *   concurrency/<provider>@<worker>.json   a worker's adaptive concurrency limit for a provider, as it last changed
 *   run.lock                               who runs the sweep now
 *   temporal/                              the embedded Temporal server's SQLite file (file system)
 *   temporal.log                           what the Temporal SDK and the embedded server logged (file system)
 */
/** A session by its settings or by its folder's name (sessionDirName). */
export type SessionName = SessionSpec | string;
export const folderOf = (session: SessionName) => (typeof session === 'string' ? session : sessionDirName(session));

const PREVIOUS_SUMMARY_PREFIX = 'summary.prev-';

/** The N of a replaced summary's file name (summary.prev-<N>.json), or undefined for any other name. */
export function previousSummaryNumber(name: string): number | undefined {
  const match = /^summary\.prev-(\d+)\.json$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The parts of a run, as relative paths or keys. */
export const runParts = {
  manifest: 'manifest.json',
  stream: (seed: number) => `streams/seed-${seed}.json`,
  sessions: 'sessions',
  session: (session: SessionName) => `sessions/${folderOf(session)}`,
  summary: (session: SessionName) => `sessions/${folderOf(session)}/summary.json`,
  /** A summary `allocbench rescore` replaced: the N-th, counting from 1. */
  previousSummary: (session: SessionName, n: number) => `sessions/${folderOf(session)}/${PREVIOUS_SUMMARY_PREFIX}${n}.json`,
  /** The common start of every replaced summary's key, for a listing. */
  previousSummaries: (session: SessionName) => `sessions/${folderOf(session)}/${PREVIOUS_SUMMARY_PREFIX}`,
  transcriptFile: (session: SessionName) => `sessions/${folderOf(session)}/transcript.jsonl`,
  transcriptRecords: (session: SessionName) => `sessions/${folderOf(session)}/transcript/`,
  /** Zero-padded, so that listing the records in key order lists them in the order they were written. */
  transcriptRecord: (session: SessionName, index: number) =>
    `sessions/${folderOf(session)}/transcript/${String(index).padStart(8, '0')}.json`,
  costFile: 'costs.jsonl',
  costs: 'costs/',
  cost: (session: string, t: number, at: string, role?: SplitRole) => `costs/${session}/${role ? `${role}-` : ''}${t}-${at}.json`,
  concurrencyRecords: 'concurrency/',
  /** A worker (host:pid) in a name any file system and bucket takes. */
  concurrency: (provider: string, worker: string) => `concurrency/${provider}@${worker.replace(/[^A-Za-z0-9._-]/g, '-')}.json`,
  lock: 'run.lock',
  temporal: 'temporal',
};

/** The same parts as paths in a run directory on a file system. */
export const runLayout = {
  manifest: (runDir: string) => join(runDir, runParts.manifest),
  stream: (runDir: string, seed: number) => join(runDir, runParts.stream(seed)),
  sessions: (runDir: string) => join(runDir, runParts.sessions),
  session: (runDir: string, session: SessionName) => join(runDir, runParts.session(session)),
  transcript: (runDir: string, session: SessionName) => join(runDir, runParts.transcriptFile(session)),
  summary: (runDir: string, session: SessionName) => join(runDir, runParts.summary(session)),
  costs: (runDir: string) => join(runDir, runParts.costFile),
  concurrencyRecords: (runDir: string) => join(runDir, runParts.concurrencyRecords),
  concurrency: (runDir: string, provider: string, worker: string) => join(runDir, runParts.concurrency(provider, worker)),
  lock: (runDir: string) => join(runDir, runParts.lock),
  temporal: (runDir: string) => join(runDir, runParts.temporal),
};

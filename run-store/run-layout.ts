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
 *   costs.jsonl                            one line per paid attempt of the run (file system)
 *   costs/<session>/[<role>-]<t>-<time>.json the same entries, one object each (object storage); role: a split agent's
 *   run.lock                               who runs the sweep now
 *   temporal/                              the embedded Temporal server's SQLite file (file system)
 */
/** A session by its settings or by its folder's name (sessionDirName). */
export type SessionName = SessionSpec | string;
export const folderOf = (session: SessionName) => (typeof session === 'string' ? session : sessionDirName(session));

/** The parts of a run, as relative paths or keys. */
export const runParts = {
  manifest: 'manifest.json',
  stream: (seed: number) => `streams/seed-${seed}.json`,
  sessions: 'sessions',
  session: (session: SessionName) => `sessions/${folderOf(session)}`,
  summary: (session: SessionName) => `sessions/${folderOf(session)}/summary.json`,
  transcriptFile: (session: SessionName) => `sessions/${folderOf(session)}/transcript.jsonl`,
  transcriptRecords: (session: SessionName) => `sessions/${folderOf(session)}/transcript/`,
  /** Zero-padded, so that listing the records in key order lists them in the order they were written. */
  transcriptRecord: (session: SessionName, index: number) =>
    `sessions/${folderOf(session)}/transcript/${String(index).padStart(8, '0')}.json`,
  costFile: 'costs.jsonl',
  costs: 'costs/',
  cost: (session: string, t: number, at: string, role?: SplitRole) => `costs/${session}/${role ? `${role}-` : ''}${t}-${at}.json`,
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
  lock: (runDir: string) => join(runDir, runParts.lock),
  temporal: (runDir: string) => join(runDir, runParts.temporal),
};

import { join } from 'node:path';
import { sessionDirName, type SessionSpec } from '../../core/sweep/session-spec.js';

/**
 * Where things live in a run directory:
 *   manifest.json                  the sweep's exact settings and experiment hash
 *   streams/seed-<S>.json          each stream, with its hash
 *   sessions/<session>/transcript.jsonl   every prompt, reply, tool call, attempt and usage
 *   sessions/<session>/summary.json       decisions, metrics, termination, usage
 *   temporal/                      the embedded Temporal server's SQLite file
 */
/** A session by its settings or by its folder's name (sessionDirName). */
type SessionName = SessionSpec | string;
const folderOf = (session: SessionName) => (typeof session === 'string' ? session : sessionDirName(session));

export const runLayout = {
  manifest: (runDir: string) => join(runDir, 'manifest.json'),
  stream: (runDir: string, seed: number) => join(runDir, 'streams', `seed-${seed}.json`),
  sessions: (runDir: string) => join(runDir, 'sessions'),
  session: (runDir: string, session: SessionName) => join(runDir, 'sessions', folderOf(session)),
  transcript: (runDir: string, session: SessionName) => join(runLayout.session(runDir, session), 'transcript.jsonl'),
  summary: (runDir: string, session: SessionName) => join(runLayout.session(runDir, session), 'summary.json'),
  temporal: (runDir: string) => join(runDir, 'temporal'),
};

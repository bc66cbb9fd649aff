import { existsSync } from 'node:fs';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { readJsonIfExists } from '../../activities/run-store/json-files.js';
import type { Manifest } from '../../activities/run-store/manifest.js';
import { runLayout } from '../../activities/run-store/run-layout.js';
import type { SessionSummary } from '../../activities/run-store/session-summary.js';

/** A finished, mechanically clean session, with where its files are. */
export interface LoadedSession {
  readonly runDir: string;
  readonly runName: string;
  readonly spec: SessionSpec;
  readonly summary: SessionSummary;
  readonly transcriptPath: string;
}

/** Something left out of the analysis, and why: the report lists these instead of dropping data silently. */
export interface Exclusion {
  readonly what: string;
  readonly reason: string;
}

export interface LoadedRun {
  readonly runDir: string;
  readonly name: string;
  readonly sessions: number;
  readonly finished: number;
}

export interface LoadedRuns {
  readonly runs: readonly LoadedRun[];
  readonly sessions: readonly LoadedSession[];
  readonly exclusions: readonly Exclusion[];
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

async function readJson<T>(path: string, exclusions: Exclusion[], what: string): Promise<T | undefined> {
  try {
    return await readJsonIfExists<T>(path);
  } catch (error) {
    exclusions.push({ what, reason: `unreadable ${path}: ${reasonOf(error)}` });
    return undefined;
  }
}

/** Reads one run directory's finished sessions; everything else becomes an exclusion. */
async function loadRun(runDir: string, exclusions: Exclusion[]): Promise<{ run: LoadedRun; sessions: LoadedSession[] } | undefined> {
  if (!existsSync(runDir)) return void exclusions.push({ what: runDir, reason: 'no such directory' });
  const manifest = await readJson<Manifest>(runLayout.manifest(runDir), exclusions, runDir);
  if (!manifest) return void exclusions.push({ what: runDir, reason: 'not a run directory (no manifest.json)' });
  let specs: SessionSpec[];
  try {
    specs = expandSweep(parseSweepConfig(manifest.config, `${runDir}: manifest config`));
  } catch (error) {
    return void exclusions.push({ what: runDir, reason: reasonOf(error) });
  }
  const sessions: LoadedSession[] = [];
  let finished = 0;
  for (const spec of specs) {
    const what = `${manifest.name}: ${sessionKey(spec)}`;
    const summary = await readJson<SessionSummary>(runLayout.summary(runDir, spec), exclusions, what);
    if (!summary) {
      exclusions.push({ what, reason: 'not finished (no summary.json)' });
      continue;
    }
    finished++;
    if (summary.mechanicalFailure) {
      exclusions.push({ what, reason: `mechanical failure (${summary.termination}); re-run the sweep to replace it` });
      continue;
    }
    sessions.push({ runDir, runName: manifest.name, spec, summary, transcriptPath: runLayout.transcript(runDir, spec) });
  }
  return { run: { runDir, name: manifest.name, sessions: specs.length, finished }, sessions };
}

/**
 * Seeds whose sessions were played on different streams under the same
 * generator settings (a stream hash mismatch) cannot be paired: all their
 * sessions are excluded. Of two sessions with the same key, the first kept.
 */
function consistent(sessions: readonly LoadedSession[], exclusions: Exclusion[]): LoadedSession[] {
  const hashes = new Map<string, Set<string>>();
  const streamKey = (s: LoadedSession) => JSON.stringify([s.spec.seed, s.spec.stream]);
  for (const session of sessions)
    hashes.set(streamKey(session), (hashes.get(streamKey(session)) ?? new Set()).add(session.summary.streamHash));
  const seen = new Map<string, string>();
  return sessions.filter((session) => {
    const what = `${session.runName}: ${sessionKey(session.spec)}`;
    const found = [...(hashes.get(streamKey(session)) ?? [])];
    if (found.length > 1) {
      exclusions.push({
        what,
        reason: `seed ${session.spec.seed} was played on different streams (hashes ${found.map((h) => h.slice(0, 12)).join(', ')})`,
      });
      return false;
    }
    const key = sessionKey(session.spec);
    const first = seen.get(key);
    if (first !== undefined) {
      exclusions.push({ what, reason: `the same session is already taken from ${first}` });
      return false;
    }
    seen.set(key, session.runDir);
    return true;
  });
}

/** Reads run directories for analysis. Never talks to Temporal and never throws on bad data: it excludes and says why. */
export async function loadRuns(runDirs: readonly string[]): Promise<LoadedRuns> {
  const exclusions: Exclusion[] = [];
  const runs: LoadedRun[] = [];
  const sessions: LoadedSession[] = [];
  for (const runDir of runDirs) {
    const loaded = await loadRun(runDir, exclusions);
    if (!loaded) continue;
    runs.push(loaded.run);
    sessions.push(...loaded.sessions);
  }
  return { runs, sessions: consistent(sessions, exclusions), exclusions };
}

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { readJsonIfExists } from '../../activities/run-store/json-files.js';
import type { Manifest } from '../../activities/run-store/manifest.js';
import { runLayout } from '../../activities/run-store/run-layout.js';
import type { SessionSummary } from '../../activities/run-store/session-summary.js';
import { readStoredStream } from '../../activities/run-store/stream-source.js';
import { encodeClasses } from '../../core/session/compact-codes.js';
import { classSequence, type Stream } from '../../core/stream/stream.js';
import { FAMILY_NAMES } from '../../core/families/family.js';

/** A finished, mechanically clean session, with where its files are. */
export interface LoadedSession {
  readonly runDir: string;
  readonly runName: string;
  /** The authors' arm it was imported from (manifest.json's import.source); null for our own runs. */
  readonly source: string | null;
  readonly spec: SessionSpec;
  /** The class sequence of the stream it was played on, one base-36 character per item. */
  readonly classes: string;
  /** The stream's hot classes (family indices), which its generator drew at the hot rate. */
  readonly hot: readonly number[];
  readonly summary: SessionSummary;
  readonly transcriptPath: string;
  /** policy/optimal's net on the same stream, where computed (analysis/online-optimum.ts). */
  readonly onlineOptimum?: number;
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
    const stream = await readStream(runLayout.stream(runDir, spec.seed), exclusions, what);
    if (!stream) continue;
    if (stream.hash !== summary.streamHash) {
      exclusions.push({
        what,
        reason: `its summary names stream ${summary.streamHash.slice(0, 12)} but the run directory holds ${stream.hash.slice(0, 12)}`,
      });
      continue;
    }
    const source = manifest.import?.source ?? null;
    sessions.push({
      runDir,
      runName: manifest.name,
      source,
      spec,
      classes: encodeClasses(classSequence(stream)),
      hot: stream.hot.map((family) => FAMILY_NAMES.indexOf(family)),
      summary,
      transcriptPath: runLayout.transcript(runDir, spec),
    });
  }
  return { run: { runDir, name: manifest.name, sessions: specs.length, finished }, sessions };
}

/**
 * Of two sessions with the same key and source on the same stream, the first
 * is kept; an economic cell at K = 0 (the charge rule stated) is not the same
 * session as a plain one. Sessions of one seed played on different streams
 * (another magnitude, say) stay: analysis pairs arms only where their streams
 * agree (analysis/stats/seed-session.ts) and says where it does not.
 */
function withoutDuplicates(sessions: readonly LoadedSession[], exclusions: Exclusion[]): LoadedSession[] {
  const seen = new Map<string, string>();
  return sessions.filter((session) => {
    const what = `${session.runName}: ${sessionKey(session.spec)}`;
    const key = [session.source ?? '', sessionKey(session.spec), session.summary.streamHash, session.spec.economic].join('\n');
    const first = seen.get(key);
    if (first !== undefined) {
      exclusions.push({ what, reason: `the same session is already taken from ${first}` });
      return false;
    }
    seen.set(key, session.runDir);
    return true;
  });
}

const streams = new Map<string, Promise<Stream>>();

/** A run directory's stored stream (each file read once), or an exclusion. */
async function readStream(path: string, exclusions: Exclusion[], what: string): Promise<Stream | undefined> {
  if (!streams.has(path)) streams.set(path, readStoredStream(path));
  try {
    return await (streams.get(path) as Promise<Stream>);
  } catch (error) {
    streams.delete(path);
    exclusions.push({ what, reason: `no readable stream (${reasonOf(error)})` });
    return undefined;
  }
}

/** A run directory, or a directory of them (an import's --out, a runs/ folder): the run directories it names. */
function runDirectoriesIn(path: string): string[] {
  if (!existsSync(path) || existsSync(runLayout.manifest(path))) return [path];
  const children = readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(runLayout.manifest(join(path, entry.name))))
    .map((entry) => join(path, entry.name))
    .sort();
  return children.length > 0 ? children : [path];
}

/** Reads run directories for analysis. Never talks to Temporal and never throws on bad data: it excludes and says why. */
export async function loadRuns(runDirs: readonly string[]): Promise<LoadedRuns> {
  const exclusions: Exclusion[] = [];
  const runs: LoadedRun[] = [];
  const sessions: LoadedSession[] = [];
  for (const runDir of runDirs.flatMap(runDirectoriesIn)) {
    const loaded = await loadRun(runDir, exclusions);
    if (!loaded) continue;
    runs.push(loaded.run);
    sessions.push(...loaded.sessions);
  }
  return { runs, sessions: withoutDuplicates(sessions, exclusions), exclusions };
}

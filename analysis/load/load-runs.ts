import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { Manifest } from '../../run-store/manifest-record.js';
import { openRunStore, runsUnder } from '../../run-store/open-run-store.js';
import type { RunStore } from '../../run-store/run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { readSessionStates, STATE_WORDS, type SessionState } from '../../run-store/session-states.js';
import { encodeClasses } from '../../core/session/compact-codes.js';
import { classSequence, type Stream } from '../../core/stream/stream.js';
import { FAMILY_NAMES } from '../../core/families/family.js';

/** A finished, mechanically clean session, with the run it is in. */
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

/** Why a session that did not finish is left out, and what would bring it in. */
function exclusionReason(state: SessionState, summary: SessionSummary | undefined, corrupt: string | undefined): string {
  switch (state) {
    case 'unreadable':
      return `unreadable summary: ${corrupt}; allocbench rescore rebuilds it from the transcript`;
    case 'stopped':
    case 'cancelled':
    case 'failed':
      return `${STATE_WORDS[state]} (${summary?.termination}); running the sweep again goes on with it`;
    default:
      return `not finished (${state})`;
  }
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** Reads one run's finished sessions; everything else becomes an exclusion, each session at most once. */
async function loadRun(runDir: string, exclusions: Exclusion[]): Promise<{ run: LoadedRun; sessions: LoadedSession[] } | undefined> {
  const store = openRunStore(runDir);
  let manifest: Manifest | undefined;
  try {
    manifest = await store.readManifest();
  } catch (error) {
    return void exclusions.push({ what: runDir, reason: reasonOf(error) });
  }
  if (!manifest) {
    const reason = (await store.exists()) ? 'not a run directory (no manifest.json)' : 'no such directory';
    return void exclusions.push({ what: runDir, reason });
  }
  let specs: SessionSpec[];
  try {
    specs = expandSweep(parseSweepConfig(manifest.config, `${runDir}: manifest config`));
  } catch (error) {
    return void exclusions.push({ what: runDir, reason: reasonOf(error) });
  }
  const sessions: LoadedSession[] = [];
  let finished = 0;
  for (const { spec, summary, corrupt, state } of await readSessionStates(store, specs)) {
    const what = `${manifest.name}: ${sessionKey(spec)}`;
    if (state !== 'finished' || !summary) {
      exclusions.push({ what, reason: exclusionReason(state, summary, corrupt) });
      continue;
    }
    finished++;
    const stream = await readStream(store, spec.seed, exclusions, what);
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
      runDir: store.location,
      runName: manifest.name,
      source,
      spec,
      classes: encodeClasses(classSequence(stream)),
      hot: stream.hot.map((family) => FAMILY_NAMES.indexOf(family)),
      summary,
    });
  }
  return { run: { runDir: store.location, name: manifest.name, sessions: specs.length, finished }, sessions };
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
    // The arm a sweep filed the session under is not part of what it measured: the same session from a sweep without arms is a duplicate.
    const key = [
      session.source ?? '',
      sessionKey({ ...session.spec, arm: undefined }),
      session.summary.streamHash,
      session.spec.economic,
    ].join('\n');
    const first = seen.get(key);
    if (first !== undefined) {
      exclusions.push({ what, reason: `the same session is already taken from ${first}` });
      return false;
    }
    seen.set(key, session.runDir);
    return true;
  });
}

const streams = new Map<string, Promise<Stream | undefined>>();

/** A run's stored stream (each read once), or an exclusion. */
async function readStream(store: RunStore, seed: number, exclusions: Exclusion[], what: string): Promise<Stream | undefined> {
  const key = `${store.location}\n${seed}`;
  if (!streams.has(key)) streams.set(key, store.readStream(seed));
  try {
    const stream = await (streams.get(key) as Promise<Stream | undefined>);
    if (!stream) throw new Error(`${store.location} has no stream for seed ${seed}`);
    return stream;
  } catch (error) {
    streams.delete(key);
    exclusions.push({ what, reason: `no readable stream (${reasonOf(error)})` });
    return undefined;
  }
}

/** Reads runs for analysis: run directories, s3:// locations, or folders of them. Never talks to Temporal and never throws on bad data: it excludes and says why. */
export async function loadRuns(runDirs: readonly string[]): Promise<LoadedRuns> {
  const exclusions: Exclusion[] = [];
  const runs: LoadedRun[] = [];
  const sessions: LoadedSession[] = [];
  for (const location of runDirs) {
    const found = await runsUnder(location);
    for (const runDir of found.length > 0 ? found : [location]) {
      const loaded = await loadRun(runDir, exclusions);
      if (!loaded) continue;
      runs.push(loaded.run);
      sessions.push(...loaded.sessions);
    }
  }
  return { runs, sessions: withoutDuplicates(sessions, exclusions), exclusions };
}

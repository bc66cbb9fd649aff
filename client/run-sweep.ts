import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { readRunResults, type RunResults } from '../analysis/run-results.js';
import { defaultCacheDir } from '../analysis/stream-values-cache.js';
import { targetFromEnv } from '../infra/temporal-target.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { resolveRunLocation } from '../run-store/run-location.js';
import { readSessionStates, type SessionReading } from '../run-store/session-states.js';
import { sourceStreamConfig } from '../run-store/stream-source.js';
import type { SweepProgress } from '../workflows/sweep-progress.js';
import { runOnTemporal, SweepCancelledError } from './sweep-on-temporal.js';
import type { ProgressListener } from './sweep-progress.js';

export interface RunSweepOptions {
  /** Where the run is written: a directory or s3://bucket/prefix (default: runs/<the sweep's name>). */
  readonly out?: string;
  /** gRPC port of the embedded Temporal dev server (default: 7233, or free ports when it is taken). */
  readonly temporalPort?: number;
  /** Run the workers in this process (default); false leaves them to `allocbench worker` on the cluster TEMPORAL_ADDRESS names. */
  readonly workers?: boolean;
  /** Keep the embedded server's files (temporal/) of a run whose every session finished; by default they are removed. */
  readonly keepHistory?: boolean;
  /** Told the sweep's progress about twice a second while it runs. */
  readonly onProgress?: ProgressListener;
  /** Told where the run lives, where the embedded server's Web UI is, and notes; by default nothing is said. */
  readonly say?: (line: string) => void;
}

/** What a run of a sweep came to: its results, and every session that did not finish, with its state. */
export interface SweepOutcome {
  readonly runDir: string;
  /** The sweep's cells, pooled over its finished sessions, each against policy/optimal on the same streams. */
  readonly results: RunResults;
  /** Sessions stopped by a cost cap, cancelled, failed, unreadable, or not ended; running the sweep again goes on with them. */
  readonly unfinished: readonly SessionReading[];
  /** The sweep was cancelled (`allocbench cancel`) while this run waited for it. */
  readonly cancelled: boolean;
  /** Session workflows that failed outright in this run (a bug, not a benchmark outcome: see the Temporal Web UI). */
  readonly workflowsFailed: number;
}

/**
 * A sweep on another source's streams (`streams`) plays exactly those: every
 * seed must be there, and the run takes their generator settings as its own.
 */
async function withSourceStreams(config: SweepConfig): Promise<SweepConfig> {
  if (config.streams === null) return config;
  const streams = resolve(config.streams);
  return { ...config, streams, stream: await sourceStreamConfig(streams, config.seeds) };
}

/**
 * Runs a sweep, or goes on with one begun in the same run directory, until
 * every session has ended, and reads what it came to. Each session is a
 * durable Temporal workflow: on the embedded dev server this process starts
 * (the default), or on the cluster TEMPORAL_ADDRESS names. Sessions that did
 * not finish are data (`unfinished`), not errors; bad input is an InputError
 * of one line per problem, and nothing starts.
 */
export async function runSweep(sweep: SweepConfig, options: RunSweepOptions = {}): Promise<SweepOutcome> {
  const config = await withSourceStreams(sweep);
  const runDir = resolveRunLocation(options.out ?? `runs/${config.name}`);
  const say = options.say ?? (() => undefined);
  const inProcessWorkers = options.workers ?? true;
  // A complete run needs the embedded server's state no more: the run store holds everything its results, audit and
  // report read, and running the sweep again finds every session finished. Its histories are about 60% of its bytes.
  const discardsState = !targetFromEnv() && inProcessWorkers && !options.keepHistory;
  say(`Sweep ${config.name}: run directory ${runDir}`);
  let progress: SweepProgress | undefined;
  try {
    progress = await runOnTemporal(config, {
      runDir,
      temporalPort: options.temporalPort,
      inProcessWorkers,
      onProgress: options.onProgress,
      say,
      discardsFinishedState: discardsState,
    });
  } catch (error) {
    if (!(error instanceof SweepCancelledError)) throw error;
  }
  // Each cell is measured against policy/optimal on its streams too (its nets kept in the cache).
  const results = await readRunResults(runDir, { cacheDir: defaultCacheDir(), say });
  const readings = await readSessionStates(openRunStore(runDir), expandSweep(config));
  const unfinished = readings.filter((reading) => reading.state !== 'finished');
  if (unfinished.length === 0 && discardsState) await rm(openRunStore(runDir).localStateDir, { recursive: true, force: true });
  return { runDir, results, unfinished, cancelled: progress === undefined, workflowsFailed: progress?.failed ?? 0 };
}

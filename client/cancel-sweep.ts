import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { readManifest } from '../run-store/manifest.js';
import { countStates, readSessionStates, type SessionState } from '../run-store/session-states.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { RunLockedError } from '../run-store/run-lock.js';
import type { RunLock, RunStore } from '../run-store/run-store.js';
import { runningDevServer } from '../infra/dev-server.js';
import { connectClient, targetFromEnv, type TemporalTarget } from '../infra/temporal-target.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { patiently, workflowResult } from '../infra/workflow-result.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { embeddedDatabase, withRunTemporal, withSweepWorkers } from './run-temporal.js';

/** A cancel through another command's server asks whether that server still runs after this many failed tries of a call. */
const GRPC_ATTEMPTS_WHILE_WATCHED = 3;

/**
 * How long a cancel whose server stopped under it waits for the run's lock:
 * the command that ran that server is ending (it stops its server, then
 * releases the lock), seconds on a loaded machine. A holder that dies frees it at once.
 */
const LOCK_PATIENCE_MS = 60_000;

/** How long a cancel whose call failed waits to see the server it used gone, before taking the failure as the answer. */
const SERVER_GONE_MS = 15_000;

/** What a cancel found running: the sweep's workflow, and sessions of it. */
export interface Cancelled {
  readonly sweep: boolean;
  readonly sessions: number;
}

/**
 * How a cancel waits: `whileClosing` runs the wait (beside workers, where the
 * cancel started the server); `serverGone` says the server it talks to has
 * stopped; `asked` is filled in as the cancel asks, so a caller whose cancel
 * ends in an error (its server stopped) knows what it had asked by then.
 */
export interface CancelOptions {
  readonly whileClosing?: (wait: () => Promise<Cancelled>) => Promise<Cancelled>;
  readonly serverGone?: () => boolean;
  readonly asked?: { sweep: boolean; sessions: number };
}

/**
 * Cancels a sweep and every session of it that runs, and waits until each has
 * closed: the sweep's keeper, told, starts no more sessions and waits for its
 * own; each session records its cancel. Sessions are cancelled here too, so
 * they stop at once even while the keeper's worker is dead (the keeper learns
 * of it only when it runs again), and sessions still running once the sweep
 * closed (a sweep terminated outright) are cancelled then.
 */
export async function cancelOnServer(client: Client, config: SweepConfig, options: CancelOptions = {}): Promise<Cancelled> {
  const { whileClosing = (wait) => wait(), serverGone, asked = { sweep: false, sessions: 0 } } = options;
  const id = sweepWorkflowId(config);
  const runningSessions = `WorkflowId STARTS_WITH "${id}/" AND ExecutionStatus = "Running"`;
  const sweep = client.workflow.getHandle(id);
  /** Waits for a workflow to close, however it closes (or until the server is gone). */
  const closed = (workflowId: string) =>
    workflowResult(client.workflow.getHandle(workflowId), undefined, serverGone).then(
      () => undefined,
      () => undefined,
    );
  const status = await sweep.describe().then(
    (description) => description.status.name,
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    },
  );
  const cancelRunning = async () => {
    const ids: string[] = [];
    for await (const session of client.workflow.list({ query: runningSessions })) ids.push(session.workflowId);
    // A session that closed meanwhile refuses the cancel.
    await Promise.all(
      ids.map((workflowId) =>
        patiently(() => client.workflow.getHandle(workflowId).cancel(), undefined, serverGone).catch(() => undefined),
      ),
    );
    return ids;
  };
  if (status === 'RUNNING') {
    await patiently(() => sweep.cancel(), undefined, serverGone);
    asked.sweep = true;
  }
  const first = await cancelRunning();
  asked.sessions = first.length;
  return whileClosing(async () => {
    await Promise.all(first.map(closed));
    if (status === 'RUNNING') await closed(id);
    const stragglers = await cancelRunning();
    asked.sessions += stragglers.length;
    await Promise.all(stragglers.map(closed));
    return { ...asked };
  });
}

/** What a cancel found running, and where the run's sessions stand after it. */
export interface CancelOutcome extends Cancelled {
  readonly name: string;
  readonly states: Readonly<Record<SessionState, number>>;
}

/**
 * Cancels the sweep of a run (a directory or s3://bucket/prefix) and every
 * session it started, and waits until each has recorded it: on the run's
 * cluster (TEMPORAL_ADDRESS); else on the embedded server of the `run` or
 * `sweep` command running the run; else, with nothing running it, on the
 * run's embedded server started here with workers (on `temporalPort`), since
 * its sessions record their cancel themselves. Running the sweep again goes
 * on with them.
 */
export async function cancelSweep(
  runDir: string,
  options: { readonly temporalPort?: number; readonly say?: (line: string) => void } = {},
): Promise<CancelOutcome> {
  const found = await cancelRun(runDir, options.temporalPort, options.say ?? (() => undefined));
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  const states = countStates((await readSessionStates(store, expandSweep(config))).map((reading) => reading.state));
  return { ...found, name: config.name, states };
}

async function cancelRun(runDir: string, port: number | undefined, say: (line: string) => void): Promise<Cancelled> {
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  const remote = targetFromEnv();
  if (remote) return cancelOn(remote, config);
  const database = embeddedDatabase(store);
  const running = runningDevServer(database);
  if (!running) return cancelHere(runDir, port, say);
  // The command running the run may end (and stop its server) meanwhile: then nothing runs it any more, and the rest is cancelled here.
  const serverGone = () => runningDevServer(database) !== running;
  const asked = { sweep: false, sessions: 0 };
  try {
    return await cancelOn({ address: running, namespace: 'default' }, config, { serverGone, asked });
  } catch (error) {
    // A call that fails while the server shuts down can fail before its files are gone: give them a moment.
    if (!(await within(SERVER_GONE_MS, serverGone))) throw error;
    // Its server stopped mid-cancel: what was asked stands, and the rest is cancelled here.
    const after = await cancelHere(runDir, port, say, LOCK_PATIENCE_MS);
    return { sweep: asked.sweep || after.sweep, sessions: asked.sessions + after.sessions };
  }
}

async function cancelOn(target: TemporalTarget, config: SweepConfig, options: CancelOptions = {}): Promise<Cancelled> {
  installQuietRuntime();
  try {
    const connection = await connectClient(target, undefined, options.serverGone && GRPC_ATTEMPTS_WHILE_WATCHED);
    try {
      return await cancelOnServer(new Client({ connection, namespace: target.namespace }), config, options);
    } finally {
      await connection.close();
    }
  } finally {
    await shutdownRuntime();
  }
}

/**
 * With nothing running the run: its embedded server started on its state, with
 * workers, unless it has none (a complete run). The run's lock is waited for
 * up to `lockPatienceMs` while a live command holds it.
 */
async function cancelHere(runDir: string, port: number | undefined, say: (line: string) => void, lockPatienceMs = 0): Promise<Cancelled> {
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  if (!existsSync(embeddedDatabase(store))) return { sweep: false, sessions: 0 };
  const lock = await lockWithin(store, lockPatienceMs, (line) => say(`allocbench: ${line}`));
  try {
    // The cancels are asked before any worker runs, so no session takes another step first.
    return await withRunTemporal(store, null, { port, say }, (temporal) =>
      cancelOnServer(temporal.client, config, { whileClosing: (wait) => withSweepWorkers(temporal, config, say, wait) }),
    );
  } finally {
    await lock.release();
  }
}

/** Whether `condition` holds within `ms`, asked every quarter second. */
async function within(ms: number, condition: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(250);
  }
  return true;
}

/** The run's lock, asked again every quarter second while a live command holds it, for up to `patienceMs`. */
async function lockWithin(store: RunStore, patienceMs: number, note: (line: string) => void): Promise<RunLock> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      return await store.lock(note);
    } catch (error) {
      if (!(error instanceof RunLockedError) || Date.now() >= deadline) throw error;
      await sleep(250);
    }
  }
}

import { existsSync } from 'node:fs';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runningDevServer } from '../infra/dev-server.js';
import { connectClient, targetFromEnv, type TemporalTarget } from '../infra/temporal-target.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { patiently, workflowResult } from '../infra/workflow-result.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { embeddedDatabase, withRunTemporal, withSweepWorkers } from './run-temporal.js';

/** What a cancel found running: the sweep's workflow, and sessions of it. */
export interface Cancelled {
  readonly sweep: boolean;
  readonly sessions: number;
}

/** Waits for a workflow to close, however it closes. */
const closed = (client: Client, workflowId: string) =>
  workflowResult(client.workflow.getHandle(workflowId)).then(
    () => undefined,
    () => undefined,
  );

/**
 * Cancels a sweep and every session of it that runs, and waits until each has
 * closed: the sweep's keeper, told, starts no more sessions and waits for its
 * own; each session records its cancel. Sessions are cancelled here too, so
 * they stop at once even while the keeper's worker is dead (the keeper learns
 * of it only when it runs again), and sessions still running once the sweep
 * closed (a sweep terminated outright) are cancelled then.
 */
export async function cancelSweep(
  client: Client,
  config: SweepConfig,
  whileClosing: (wait: () => Promise<Cancelled>) => Promise<Cancelled> = (wait) => wait(),
): Promise<Cancelled> {
  const id = sweepWorkflowId(config);
  const runningSessions = `WorkflowId STARTS_WITH "${id}/" AND ExecutionStatus = "Running"`;
  const sweep = client.workflow.getHandle(id);
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
    await Promise.all(ids.map((workflowId) => patiently(() => client.workflow.getHandle(workflowId).cancel()).catch(() => undefined)));
    return ids;
  };
  if (status === 'RUNNING') await patiently(() => sweep.cancel());
  const first = await cancelRunning();
  return whileClosing(async () => {
    await Promise.all(first.map((workflowId) => closed(client, workflowId)));
    if (status === 'RUNNING') await closed(client, id);
    const stragglers = await cancelRunning();
    await Promise.all(stragglers.map((workflowId) => closed(client, workflowId)));
    return { sweep: status === 'RUNNING', sessions: first.length + stragglers.length };
  });
}

/**
 * `allocbench cancel <run>`: on the run's cluster (TEMPORAL_ADDRESS); else on
 * the embedded server of the `run` or `sweep` command running the run; else,
 * with nothing running it, on the run's embedded server started here with
 * workers, since its sessions record their cancel themselves.
 */
export async function cancelRun(runDir: string, port: number, say: (line: string) => void): Promise<Cancelled> {
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  const remote = targetFromEnv();
  if (remote) return cancelOn(remote, config);
  const running = runningDevServer(embeddedDatabase(store));
  // The command running the run may end (and stop its server) meanwhile: then nothing runs it any more.
  if (running) return cancelOn({ address: running, namespace: 'default' }, config).catch(() => cancelHere(runDir, port, say));
  return cancelHere(runDir, port, say);
}

async function cancelOn(target: TemporalTarget, config: SweepConfig): Promise<Cancelled> {
  installQuietRuntime();
  try {
    const connection = await connectClient(target);
    try {
      return await cancelSweep(new Client({ connection, namespace: target.namespace }), config);
    } finally {
      await connection.close();
    }
  } finally {
    await shutdownRuntime();
  }
}

/** With nothing running the run: its embedded server started on its state, with workers, unless it has none (a complete run). */
async function cancelHere(runDir: string, port: number, say: (line: string) => void): Promise<Cancelled> {
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  if (!existsSync(embeddedDatabase(store))) return { sweep: false, sessions: 0 };
  const lock = await store.lock((line) => say(`allocbench: ${line}`));
  try {
    // The cancels are asked before any worker runs, so no session takes another step first.
    return await withRunTemporal(store, null, { port, say }, ({ client, target }) =>
      cancelSweep(client, config, (wait) => withSweepWorkers(target, config, say, wait)),
    );
  } finally {
    await lock.release();
  }
}

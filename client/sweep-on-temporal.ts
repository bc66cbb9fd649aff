import type { Client, WorkflowHandle } from '@temporalio/client';
import { InputError } from '../core/errors.js';
import { calledModels, expandSweep } from '../core/sweep/expand-sweep.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { policyAgentLimitation } from '../activities/providers/policy-provider.js';
import { createProvider } from '../activities/providers/registry.js';
import { runVersions } from '../infra/run-versions.js';
import { checkRunDirectory, claimRunDirectory, readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { RunStoreError } from '../run-store/store-errors.js';
import { ensureSearchAttributes } from '../infra/search-attributes-setup.js';
import { targetFromEnv, type TemporalTarget } from '../infra/temporal-target.js';
import { checkClusterRate, setProviderRates } from './provider-limits.js';
import { withRunTemporal, withSweepWorkers } from './run-temporal.js';
import { providerOf, SESSIONS_TASK_QUEUE } from '../protocol/task-queues.js';
import { runStoreFailureIn } from '../protocol/failures.js';
import { SWEEP_ID } from '../protocol/search-attributes.js';
import { sweepWorkflow } from '../workflows/sweep-workflow.js';
import type { SweepProgress } from '../workflows/sweep-progress.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { followProgress, type ProgressListener } from './sweep-progress.js';
import { cancelledWorkflow, workflowResult } from '../infra/workflow-result.js';

/** The sweep this run waited for was cancelled (`allocbench cancel`); its sessions stopped where they were. */
export class SweepCancelledError extends Error {
  override readonly name = 'SweepCancelledError';
}

export interface TemporalRunOptions {
  /** Absolute, or s3://bucket/prefix: activities on other machines must reach the same run (shared storage or a bucket). */
  readonly runDir: string;
  /** gRPC port of the embedded dev server (its Web UI is on port + 1000); left out, Temporal's default or free ports when it is taken. */
  readonly temporalPort: number | undefined;
  /** Run workers in this process (always, with the embedded server). */
  readonly inProcessWorkers: boolean;
  readonly onProgress: ProgressListener | undefined;
  /** Told where the run lives and, for the embedded server, where its Web UI is. */
  readonly say: (line: string) => void;
  /** The embedded server's state is removed once every session finished (runSweep): then its server is killed, not stopped. */
  readonly discardsFinishedState?: boolean;
}

/**
 * Everything about the models that can be known before a session starts:
 * each id parses, the provider has what it needs here (a key, a reachable
 * server, a GGUF file) when this process runs the workers, policy agents can
 * play the framing, and a cost cap has a price for every hosted model. A
 * replay that never calls the live model needs none of it (no key, no network).
 */
async function checkModels(config: SweepConfig, inProcessWorkers: boolean): Promise<void> {
  const capped = config.unitCap !== null || config.runCap !== null;
  const live = config.replay?.miss !== 'error';
  for (const model of calledModels(config)) {
    const provider = createProvider(model);
    if (inProcessWorkers && live) await provider.preflight();
    const limitation = config.announceN.map((announceN) => policyAgentLimitation(model, announceN)).find(Boolean);
    if (limitation) throw new InputError(limitation);
    if (capped && !provider.local && providerOf(model) !== 'policy' && !config.prices[model]) {
      throw new InputError(`${model}: a cost cap is set but the price table has no entry for this model (config/prices.yaml or --prices)`);
    }
  }
}

/** A replay's recorded run must be a run, and not the one being written. */
async function checkReplaySource(config: SweepConfig, runDir: string): Promise<void> {
  if (!config.replay) return;
  const from = config.replay.from;
  if (from === runDir) throw new InputError(`--replay-from ${from}: is the run being written; replay into another --out`);
  try {
    await readManifest(openRunStore(from));
  } catch (error) {
    if (error instanceof InputError) throw new InputError(`--replay-from: ${error.message}`);
    throw error;
  }
}

/**
 * Starts the sweep workflow, or attaches to it if it is already running: the
 * same run resumed (same name and experiment hash, so the same workflow id).
 * On a cluster, a running workflow of that id that writes to another run
 * directory is refused.
 */
async function startOrAttach(
  client: Client,
  config: SweepConfig,
  runDir: string,
  remote: boolean,
): Promise<WorkflowHandle<typeof sweepWorkflow>> {
  const workflowId = sweepWorkflowId(config);
  const handle = await client.workflow.start(sweepWorkflow, {
    workflowId,
    taskQueue: SESSIONS_TASK_QUEUE,
    args: [{ runDir, sweepId: config.name, config, eagerStart: !remote }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    typedSearchAttributes: [{ key: SWEEP_ID, value: config.name }],
    memo: { runDir },
  });
  if (remote) {
    const { memo } = await handle.describe();
    const owner = memo?.runDir;
    if (typeof owner === 'string' && owner !== runDir) {
      throw new InputError(
        `workflow ${workflowId} is running for run directory ${owner}, not ${runDir}: wait for it to finish, or use another sweep name`,
      );
    }
  }
  return handle;
}

/** A run-store file-system failure that stopped the sweep becomes its one line (exit 2); anything else stays as it is. */
function stoppedByRunStore(error: unknown): unknown {
  const failure = runStoreFailureIn(error);
  return failure ? new RunStoreError(failure.message) : error;
}

/**
 * Runs (or resumes) a sweep on Temporal to completion: validates it, locks and
 * claims the run directory, brings up Temporal (the embedded dev server unless
 * TEMPORAL_ADDRESS is set) and workers, starts the sweep workflow — or
 * attaches to it if it is already running — and waits for it: a
 * SweepCancelledError if it is cancelled meanwhile. The lock is released
 * however this ends.
 */
export async function runOnTemporal(config: SweepConfig, options: TemporalRunOptions): Promise<SweepProgress> {
  await checkModels(config, options.inProcessWorkers);
  await checkReplaySource(config, options.runDir);
  const remote = targetFromEnv();
  if (!remote && !options.inProcessWorkers)
    throw new InputError('--no-worker needs TEMPORAL_ADDRESS: the embedded server has no other workers');
  checkClusterRate(config, remote);
  const lock = await openRunStore(options.runDir).lock(options.say);
  try {
    return await runLocked(config, options, remote);
  } catch (error) {
    throw stoppedByRunStore(error);
  } finally {
    await lock.release();
  }
}

async function runLocked(config: SweepConfig, options: TemporalRunOptions, remote: TemporalTarget | null): Promise<SweepProgress> {
  const store = openRunStore(options.runDir);
  await checkRunDirectory(store, config);
  const discardsState = (progress: SweepProgress) => options.discardsFinishedState === true && progress.finished === progress.total;
  return withRunTemporal(
    store,
    remote,
    { port: options.temporalPort, say: options.say, discardsState, sessions: config.window },
    async (temporal) => {
      const { client, connection, target } = temporal;
      if (remote) await ensureSearchAttributes(connection, target.namespace);
      await setProviderRates(connection, config, target.namespace, options.say);
      // Started (or attached to) before any worker exists, so a refusal leaves no worker to shut down.
      const handle = await startOrAttach(client, config, options.runDir, remote !== null);
      await claimRunDirectory(store, config, runVersions());
      const result = () => {
        const done = workflowResult<SweepProgress>(handle, options.say);
        const followed = options.onProgress
          ? followProgress(handle, expandSweep(config).length, done, options.onProgress, { store, capUsd: config.runCap })
          : done;
        return followed.catch((error: unknown) => {
          throw cancelledWorkflow(error) ? new SweepCancelledError(`sweep ${config.name} was cancelled`) : error;
        });
      };
      return options.inProcessWorkers ? withSweepWorkers(temporal, config, options.say, result) : result();
    },
  );
}

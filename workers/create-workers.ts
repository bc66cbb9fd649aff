import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NativeConnection, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { createModelActivities } from '../activities/model-activities.js';
import type { CallLimit } from '../activities/providers/call-limits.js';
import { ProviderRegistry } from '../activities/providers/registry.js';
import { runLayout } from '../run-store/run-layout.js';
import { projectRoot } from '../infra/project-root.js';
import { runStoreActivityFailure } from '../run-store/store-errors.js';
import { createStoreActivities } from '../activities/store-activities.js';
import { createSweepActivities } from '../activities/session-keeper.js';
import { providerTaskQueue, SESSIONS_TASK_QUEUE } from '../protocol/task-queues.js';

/** This worker's limits on one provider's model calls (activities/providers/call-limits.ts). */
export interface ProviderLimit extends CallLimit {
  readonly provider: string;
}

export interface WorkerSetup {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** Host the sessions queue: the workflows and the run-store activities. */
  readonly sessions: boolean;
  /**
   * Sessions this worker carries at once (a sweep's window): its workflow-task,
   * local-activity and activity slots and its workflow cache follow it, since
   * a session holds its slot while its reference agent's call runs.
   */
  readonly sessionSlots: number;
  /**
   * Providers whose queues this worker serves, and its limits on each one's
   * calls: one limit per provider for the calls from its queue and those its
   * sessions make in-session (sweep-config.ts, `modelCalls`) together. A rate
   * across all workers is the server's, on the provider's queue
   * (infra/queue-rate.ts), never a worker's.
   */
  readonly providers: readonly ProviderLimit[];
}

/** The workflow entry point: TypeScript when this module runs from source (tests), else the compiled JS under dist/. */
export function workflowsPath(): string {
  const fromSource = import.meta.url.endsWith('.ts');
  return fromSource ? join(projectRoot(), 'workflows', 'index.ts') : join(projectRoot(), 'dist', 'workflows', 'index.js');
}

/** The workflow code bundled by `npm run build` (workers/bundle-workflows.ts); tests run from source use it too. */
export function workflowBundlePath(): string {
  return join(projectRoot(), 'dist', 'workflow-bundle.js');
}

/** The bundle when the build made one, else the workflow sources, bundled as the worker starts (or the replayer). */
export function workflowCode() {
  const bundle = workflowBundlePath();
  return existsSync(bundle) ? { workflowBundle: { codePath: bundle } } : { workflowsPath: workflowsPath() };
}

/**
 * A file-system error no retry mends (a full disk, an unwritable run
 * directory) fails the activity non-retryably, as one line naming the file,
 * so the sweep stops instead of retrying. A failed write names no file: it is
 * the session's transcript (the run store's other writers name theirs), or
 * else the run directory.
 */
export const runStoreErrors: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (error) {
        const { runDir, spec } = (input.args[0] ?? {}) as { runDir?: unknown; spec?: SessionSpec };
        const where = typeof runDir === 'string' ? (spec ? runLayout.transcript(runDir, spec) : runDir) : undefined;
        throw runStoreActivityFailure(error, where) ?? error;
      }
    },
  },
});

/**
 * Slots for `sessions` in flight at once. A session holds a workflow-task slot
 * while its reference agent's local activity runs, and every poller holds a
 * slot while it waits for a task, so the slots are the sessions plus the
 * pollers plus two (the sweep workflow, a spare); below that, sessions queue
 * behind each other (the SDK's default of 40 moved about 30 of 128). Fewer
 * than 8 pollers left new sessions' first tasks waiting up to 20 s while
 * others held theirs (bench:scale: 8 sessions moved at 67% of the limit with
 * 2 or 4 pollers, 98% with 8).
 */
export function sessionWorkerSlots(sessions: number) {
  const pollers = Math.min(32, Math.max(8, Math.ceil(sessions / 16)));
  const activityPollers = 5;
  return {
    maxConcurrentWorkflowTaskPolls: pollers,
    maxConcurrentWorkflowTaskExecutions: sessions + pollers + 2,
    maxCachedWorkflows: sessions + pollers + 2,
    maxConcurrentLocalActivityExecutions: sessions + 2,
    maxConcurrentActivityTaskPolls: activityPollers,
    maxConcurrentActivityTaskExecutions: sessions + activityPollers + 2,
  };
}

/**
 * Up to this many sessions in flight, workflows run on the worker's main
 * thread beside the activities (the SDK names that `debugMode`; its deadlock
 * detector is kept at the usual 5 s). A thread of their own is a second V8
 * isolate holding the workflow bundle: about 25 MiB, 9% of a short run's peak
 * memory (bench:short-run), for no throughput at windows 32 and 128
 * (bench:scale: 99.0% and 97.7% of the limit against 99.2% and 98.4%). At 512
 * the thread is worth its memory: 88.8% of the limit on the provider path
 * against 82.7%.
 */
const MAIN_THREAD_WORKFLOWS_UP_TO = 128;

const workflowThread = (sessions: number) =>
  sessions <= MAIN_THREAD_WORKFLOWS_UP_TO ? { debugMode: true, isolateExecutionTimeout: '5s' } : {};

export async function createWorkers(setup: WorkerSetup): Promise<Worker[]> {
  const { connection, namespace } = setup;
  const providers = new ProviderRegistry(new Map(setup.providers.map(({ provider, ...limit }) => [provider, limit])));
  const workers: Promise<Worker>[] = [];
  if (setup.sessions) {
    workers.push(
      Worker.create({
        connection,
        namespace,
        taskQueue: SESSIONS_TASK_QUEUE,
        ...workflowCode(),
        // In-session model calls run here, as local activities of their sessions; so does a sweep's keeper, which starts them.
        activities: { ...createStoreActivities(), ...createModelActivities(providers), ...createSweepActivities() },
        interceptors: { activity: [runStoreErrors] },
        ...sessionWorkerSlots(setup.sessionSlots),
        // The keeper's heartbeats carry its place in the sweep and bring it a cancel: each reaches the server within a second.
        maxHeartbeatThrottleInterval: '1s',
        ...workflowThread(setup.sessionSlots),
      }),
    );
  }
  for (const limit of setup.providers) {
    workers.push(
      Worker.create({
        connection,
        namespace,
        taskQueue: providerTaskQueue(limit.provider),
        activities: createModelActivities(providers),
        interceptors: { activity: [runStoreErrors] },
        // The limiter above holds the calls to the limit; the slots only keep this worker from taking tasks it cannot start.
        maxConcurrentActivityTaskExecutions: limit.concurrency,
      }),
    );
  }
  return Promise.all(workers);
}

/** Runs the workers until `until` settles (or forever), then shuts them down cleanly. */
export async function runWorkers(workers: readonly Worker[], until?: Promise<unknown>): Promise<void> {
  const running = Promise.all(workers.map((worker) => worker.run()));
  if (!until) return void (await running);
  try {
    await until;
  } finally {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  }
}

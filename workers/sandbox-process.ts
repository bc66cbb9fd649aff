/*
 * The sandbox worker process: the only process that runs R3 scripts, each in
 * an isolate process of its own (ScriptSandbox), which is ended after a run a
 * limit stopped. It serves the sandbox task queue of the cluster named by
 * TEMPORAL_ADDRESS and stops on SIGTERM, SIGINT or when its parent's IPC
 * channel closes; startSandboxProcess starts it, and again if it dies. Torn
 * transcript lines are not reported here, only set aside: the session worker
 * reads every transcript before its scripts run and reports one it finds, and
 * one this process tore by dying mid-append was announced by the launcher (its
 * bytes are kept in <file>.torn).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createScriptActivities } from '../activities/script-activities.js';
import { setTornLineReporter } from '../run-store/json-files.js';
import { ScriptSandbox } from '../activities/sandbox/script-sandbox.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { connectWorker, targetFromEnv } from '../infra/temporal-target.js';
import { runWorkers } from './create-workers.js';
import { SANDBOX_TASK_QUEUE } from '../protocol/task-queues.js';

const target = targetFromEnv();
if (!target) {
  process.stderr.write('sandbox worker: TEMPORAL_ADDRESS is not set\n');
  process.exit(2);
}
const concurrency = Math.max(1, Number(process.env.ALLOCBENCH_SANDBOX_CONCURRENCY) || 2);
setTornLineReporter(() => undefined);
// The run's Temporal log, which the launching command names, keeps the SDK's lines off the terminal here too.
installQuietRuntime(process.env.ALLOCBENCH_TEMPORAL_LOG || undefined);
const connection: NativeConnection = await connectWorker(target);
const sandbox = new ScriptSandbox({ isolates: concurrency });
const worker = await Worker.create({
  connection,
  namespace: target.namespace,
  taskQueue: SANDBOX_TASK_QUEUE,
  activities: createScriptActivities(sandbox),
  maxConcurrentActivityTaskExecutions: concurrency,
});
const stop = new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
  process.once('disconnect', resolve);
});
await runWorkers([worker], stop);
sandbox.dispose();
await connection.close();
await shutdownRuntime();
process.disconnect?.();

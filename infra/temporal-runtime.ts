import { CancelledFailure } from '@temporalio/common';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogEntry } from '@temporalio/worker';
import { appendTemporalLog } from './temporal-log.js';

let installed = false;
/** Where the SDK's lines go while the runtime is installed: a run's Temporal log, or the terminal (stderr) without one. */
let logFile: string | undefined;

/**
 * Warnings that are expected here: provider-queue workers have no workflows by
 * design; a reference agent's session runs its calls as local activities, many
 * in one long workflow task; a transport error is retried by the rerun
 * rules and audited in the transcript (`allocbench audit`); and a cancelled
 * sweep's workflows end cancelled (`allocbench cancel`).
 */
function expected(entry: LogEntry): boolean {
  if (entry.message.startsWith('No workflows registered, not polling for workflow tasks')) return true;
  if (entry.message.includes('Workflow task duration exceeded')) return true;
  const error = (entry.meta as { error?: { type?: string } } | undefined)?.error;
  if (entry.message === 'Workflow failed' && error instanceof CancelledFailure) return true;
  return entry.message === 'Activity failed' && error?.type === 'TransportError';
}

function print(entry: LogEntry): void {
  if (expected(entry)) return;
  const meta = entry.meta ? ` ${JSON.stringify(entry.meta)}` : '';
  if (logFile) appendTemporalLog(logFile, 'sdk', `${entry.level} ${entry.message}${meta}`);
  else process.stderr.write(`[temporal ${entry.level}] ${entry.message}${meta}\n`);
}

/**
 * Quiets the Temporal SDK: warnings and errors only, from both the TS side and
 * the native core, written to `log` (a run's Temporal log, infra/temporal-log.ts)
 * when given, else to stderr, so the CLI's own output stays readable. Signals
 * are left to the CLI. Call before any worker or native connection is created.
 */
export function installQuietRuntime(log?: string): void {
  if (installed) return;
  installed = true;
  logFile = log;
  Runtime.install({
    logger: new DefaultLogger('WARN', print),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
    shutdownSignals: [],
  });
}

/** Shuts the native runtime down; until then it keeps the process alive. */
export async function shutdownRuntime(): Promise<void> {
  if (!installed) return;
  installed = false;
  await Runtime.instance().shutdown();
}

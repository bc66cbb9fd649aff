import { continueAsNew, defineQuery, executeChild, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { sessionKey } from '../core/sweep/session-spec.js';
import { expandSweep, type SweepConfig } from '../core/sweep/sweep-config.js';
import type { StoreActivities } from '../activities/store-activities.js';
import { sessionSearchAttributes } from './search-attributes.js';
import { sessionWorkflow } from './session-workflow.js';

export interface SweepInput {
  readonly runDir: string;
  /** The sweep's name; session workflow ids are `<sweep workflow id>/<session key>`. */
  readonly sweepId: string;
  readonly config: SweepConfig;
}

export interface SweepProgress {
  readonly total: number;
  readonly finished: number;
  readonly running: number;
  readonly mechanicalFailures: number;
  /** Sessions whose workflow failed outright (a bug, not a benchmark outcome). */
  readonly failed: number;
}

export const progressQuery = defineQuery<SweepProgress>('progress');

/**
 * Fans a sweep out as child session workflows with deterministic ids, at most
 * `window` at a time. Sessions already finished in the run store are skipped,
 * so re-running a sweep resumes it; mechanical failures are run again (the
 * replacement run the paper allows). Continues as new when history grows,
 * after letting the running children finish.
 */
export async function sweepWorkflow(input: SweepInput): Promise<SweepProgress> {
  const { runDir, config } = input;
  const specs = expandSweep(config);
  const store = proxyActivities<StoreActivities>({ startToCloseTimeout: '10 minutes', retry: { maximumAttempts: 10 } });
  const pending = await store.unfinishedSessions({ runDir, config });
  const progress = { total: specs.length, finished: specs.length - pending.length, running: 0, mechanicalFailures: 0, failed: 0 };
  setHandler(progressQuery, () => ({ ...progress }));

  const prefix = workflowInfo().workflowId;
  const runOne = async (index: number) => {
    const spec = specs[index];
    if (!spec) return;
    progress.running++;
    try {
      const outcome = await executeChild(sessionWorkflow, {
        workflowId: `${prefix}/${sessionKey(spec)}`,
        args: [{ runDir, spec, heartbeatSeconds: config.heartbeatSeconds }],
        typedSearchAttributes: sessionSearchAttributes(input.sweepId, spec),
      });
      progress.finished++;
      if (outcome.mechanicalFailure) progress.mechanicalFailures++;
    } catch (error) {
      progress.failed++;
      log.error('session workflow failed', { session: sessionKey(spec), error: String(error) });
    } finally {
      progress.running--;
    }
  };

  const inFlight = new Set<Promise<void>>();
  for (const index of pending) {
    while (inFlight.size >= config.window) await Promise.race(inFlight);
    const run: Promise<void> = runOne(index).finally(() => inFlight.delete(run));
    inFlight.add(run);
    if (workflowInfo().continueAsNewSuggested) {
      await Promise.all(inFlight);
      return continueAsNew<typeof sweepWorkflow>(input);
    }
  }
  await Promise.all(inFlight);
  return { ...progress };
}

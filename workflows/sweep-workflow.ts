import {
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  executeChild,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { sessionKey } from '../core/sweep/session-spec.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import type { StoreActivities } from '../protocol/activities.js';
import { RUN_STORE_FAILURE, runStoreFailureIn } from '../protocol/failures.js';
import { sessionSearchAttributes } from '../protocol/search-attributes.js';
import { sessionWorkflow } from './session-workflow.js';

export interface SweepInput {
  readonly runDir: string;
  /** The sweep's name (the SweepId search attribute); session workflow ids are `<sweep workflow id>/<session key>` (workflow-ids.ts). */
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
 * after letting the running children finish. A session stopped by a run-store
 * file-system failure (a full disk, an unwritable run directory) stops the
 * sweep at once with that failure: every other session would hit it too.
 */
export async function sweepWorkflow(input: SweepInput): Promise<SweepProgress> {
  const { runDir, config } = input;
  const specs = expandSweep(config);
  const store = proxyActivities<StoreActivities>({ startToCloseTimeout: '10 minutes', retry: { maximumAttempts: 10 } });
  const pending = await store.unfinishedSessions({ runDir, config });
  const progress = { total: specs.length, finished: specs.length - pending.length, running: 0, mechanicalFailures: 0, failed: 0 };
  setHandler(progressQuery, () => ({ ...progress }));

  const prefix = workflowInfo().workflowId;
  let fatal: ApplicationFailure | undefined;
  const runOne = async (index: number) => {
    const spec = specs[index];
    if (!spec) return;
    progress.running++;
    try {
      const outcome = await executeChild(sessionWorkflow, {
        workflowId: `${prefix}/${sessionKey(spec)}`,
        args: [
          {
            runDir,
            spec,
            heartbeatSeconds: config.heartbeatSeconds,
            modelCalls: config.modelCalls,
            ...(config.replay && { replay: config.replay }),
          },
        ],
        typedSearchAttributes: sessionSearchAttributes(input.sweepId, spec),
      });
      progress.finished++;
      if (outcome.mechanicalFailure) progress.mechanicalFailures++;
    } catch (error) {
      progress.failed++;
      fatal ??= runStoreFailureIn(error);
      log.error('session workflow failed', { session: sessionKey(spec), error: String(error) });
    } finally {
      progress.running--;
    }
  };

  const stop = (failure: ApplicationFailure) =>
    ApplicationFailure.create({
      type: RUN_STORE_FAILURE,
      message: failure.message,
      details: failure.details ?? undefined,
      nonRetryable: true,
    });
  const inFlight = new Set<Promise<void>>();
  for (const index of pending) {
    while (inFlight.size >= config.window && !fatal) await Promise.race(inFlight);
    if (fatal) throw stop(fatal);
    const run: Promise<void> = runOne(index).finally(() => inFlight.delete(run));
    inFlight.add(run);
    if (workflowInfo().continueAsNewSuggested) {
      await Promise.all(inFlight);
      if (fatal) throw stop(fatal);
      return continueAsNew<typeof sweepWorkflow>(input);
    }
  }
  while (inFlight.size > 0 && !fatal) await Promise.race(inFlight);
  if (fatal) throw stop(fatal);
  return { ...progress };
}

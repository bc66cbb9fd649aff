import { ActivityCancellationType, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import type { StoreActivities, SweepActivities } from '../protocol/activities.js';
import { RUN_STORE_FAILURE, runStoreFailureIn } from '../protocol/failures.js';
import { sweepAsChildren } from './sweep-as-children.js';
import { sweepStopped, type SweepInput, type SweepProgress } from './sweep-progress.js';

/** The change that made sessions top-level workflows started by the sweep's keeper: sweeps begun before it run as they began. */
const TOP_LEVEL_SESSIONS = 'top-level-sessions';

/**
 * A sweep: its sessions that are not finished in the run store, each a
 * durable workflow of its own, at most `window` at a time. Sessions already
 * finished are skipped, so running a sweep again resumes it; mechanical
 * failures are run again (the replacement run the paper allows). The sessions
 * are started and followed by one long-running activity, the keeper
 * (activities/session-keeper.ts), so the sweep's own history stays a handful
 * of events at any size and no limit on a workflow's children applies.
 * Cancelled, it waits for the keeper to cancel every session it started. A
 * session stopped by a run-store file-system failure (a full disk, an
 * unwritable run directory) stops the sweep with that failure: every other
 * session would hit it too.
 */
export async function sweepWorkflow(input: SweepInput): Promise<SweepProgress> {
  const { runDir, config } = input;
  const specs = expandSweep(config);
  const store = proxyActivities<StoreActivities>({ startToCloseTimeout: '10 minutes', retry: { maximumAttempts: 10 } });
  const pending = await store.unfinishedSessions({ runDir, config });
  if (!patched(TOP_LEVEL_SESSIONS)) return sweepAsChildren(input, specs, pending);

  const sweep = proxyActivities<SweepActivities>({
    // As long as the sweep takes; a dead worker is noticed by the missing heartbeats, and the keeper runs again elsewhere.
    startToCloseTimeout: '3650 days',
    heartbeatTimeout: `${config.heartbeatSeconds}s`,
    retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: [RUN_STORE_FAILURE] },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    const tally = await sweep.keepWindow({
      runDir,
      sweepId: input.sweepId,
      sweepWorkflowId: workflowInfo().workflowId,
      config,
      sessions: pending,
      eagerStart: input.eagerStart ?? false,
    });
    const { finished, stopped, cancelled, mechanicalFailures, failed } = tally;
    return {
      total: specs.length,
      finished: specs.length - pending.length + finished,
      stopped,
      cancelled,
      running: 0,
      mechanicalFailures,
      failed,
    };
  } catch (error) {
    const fatal = runStoreFailureIn(error);
    throw fatal ? sweepStopped(fatal) : error;
  }
}

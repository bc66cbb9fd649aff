import { Context } from '@temporalio/activity';
import type { WorkflowHandle, WorkflowStartOptions } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import proto from '@temporalio/proto';
import { costCapsOf, expandSweep } from '../core/sweep/expand-sweep.js';
import { endingOf, type SessionEnding } from '../core/session/termination.js';
import { SessionLedger, type SessionEnd, type SessionTally } from '../core/sweep/session-ledger.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import type { KeeperInput, SessionOutcome, SweepActivities } from '../protocol/activities.js';
import { RUN_STORE_FAILURE, runStoreFailureIn } from '../protocol/failures.js';
import { sessionSearchAttributes } from '../protocol/search-attributes.js';
import { SESSION_WORKFLOW_TYPE, sessionWorkflowId, type SessionInput } from '../protocol/session-workflow.js';
import { SESSIONS_TASK_QUEUE } from '../protocol/task-queues.js';
import { cancelledWorkflow, patiently, workflowResult } from '../infra/workflow-result.js';

const CANCEL_REQUESTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED; // CommonJS: no named ESM exports

/** How the ledger counts a session that returned (a cancelled one throws instead). */
const LEDGER_ENDS: Readonly<Record<SessionEnding, SessionEnd>> = {
  finished: 'finished',
  stopped: 'stopped',
  cancelled: 'cancelled',
  failed: 'mechanical-failure',
};

/** Session starts asked of the server at once: a window of thousands fills in seconds, and the server's queue stays short. */
const STARTS_AT_ONCE = 32;
/** The keeper heartbeats its ledger this often; its worker sends one on at most every second (create-workers.ts). */
export const KEEPER_HEARTBEAT_MS = 1000;

/** Runs `work` with at most `limit` of them under way at once. */
function limiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * The sweep's keeper, an activity on the sessions' worker: it starts each
 * session as a workflow of its own (not a child of the sweep, so no limit on
 * a workflow's children caps the window and no session waits on the sweep's
 * lock to start or end), with its deterministic id, through the worker's own
 * client; with the embedded server, asking for an eager start (the worker that
 * starts it, the only one, takes its first task without a round trip through
 * the task queue). It keeps `window` sessions in flight, following each to its end by
 * its result, and heartbeats its ledger (core/sweep/session-ledger.ts).
 *
 * No session runs twice. A start takes a running session of the same id
 * instead of starting another, and refuses one whose last run is closed: that
 * one is run again only if it closed before this keeper was first scheduled
 * (a replacement run the sweep asked for), never if it closed since (this
 * keeper started it before a retry; its result is counted once).
 *
 * Cancelled by the sweep (`allocbench cancel`), it starts nothing more,
 * cancels every session it started and waits for them to record it. Stopped
 * otherwise (its worker shutting down, a missed heartbeat) it leaves the
 * sessions running for its next attempt to follow. A session stopped by a
 * run-store failure stops the others the same way and fails the sweep.
 */
export function createSweepActivities(): SweepActivities {
  return {
    async keepWindow(input: KeeperInput): Promise<SessionTally> {
      const context = Context.current();
      const { client, info } = context;
      const specs = expandSweep(input.config);
      const specAt = (position: number) => specs[input.sessions[position] as number] as SessionSpec;
      const ledger = SessionLedger.resume(input.sessions.length, info.heartbeatDetails);
      const since = info.scheduledTimestampMs;
      const startLimit = limiter(STARTS_AT_ONCE);

      let stop: 'cancel' | 'leave' | undefined;
      let fatal: ApplicationFailure | undefined;
      let cancelReason: unknown;
      let wake = () => {};
      const changed = () => new Promise<void>((resolve) => (wake = resolve));
      context.cancelled.catch((reason: unknown) => {
        cancelReason = reason;
        stop = context.cancellationDetails?.cancelRequested ? 'cancel' : 'leave';
        wake();
      });

      // A cancel asked of the sweep before this attempt began (its worker dead meanwhile) or while it ran: asked of the
      // sweep itself (its workflow, on a worker that has not yet run since, may not have passed it on to this activity) or of this activity.
      const sweepCancelled = async () => {
        const sweep = info.workflowExecution?.workflowId;
        if (sweep === undefined) return false;
        const { raw } = await patiently(() => client.workflow.getHandle(sweep).describe());
        if (raw.workflowExtendedInfo?.cancelRequested) return true;
        const self = raw.pendingActivities?.find((activity) => activity.activityId === info.activityId);
        return self?.state === CANCEL_REQUESTED;
      };

      const startOrFind = async (spec: SessionSpec): Promise<WorkflowHandle> => {
        const workflowId = sessionWorkflowId(input.sweepWorkflowId, spec);
        const args: [SessionInput] = [
          {
            runDir: input.runDir,
            spec,
            caps: costCapsOf(input.config),
            heartbeatSeconds: input.config.heartbeatSeconds,
            modelCalls: input.config.modelCalls,
            ...(input.config.replay && { replay: input.config.replay }),
          },
        ];
        const options = {
          workflowId,
          taskQueue: SESSIONS_TASK_QUEUE,
          args,
          typedSearchAttributes: sessionSearchAttributes(input.sweepId, spec),
          workflowIdConflictPolicy: 'USE_EXISTING',
          requestEagerStart: input.eagerStart,
        } satisfies WorkflowStartOptions;
        try {
          return await patiently(() =>
            client.workflow.start(SESSION_WORKFLOW_TYPE, { ...options, workflowIdReusePolicy: 'REJECT_DUPLICATE' }),
          );
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
        const closed = client.workflow.getHandle(workflowId);
        const { closeTime } = await patiently(() => closed.describe());
        if (closeTime && closeTime.getTime() >= since) return closed;
        return patiently(() => client.workflow.start(SESSION_WORKFLOW_TYPE, { ...options, workflowIdReusePolicy: 'ALLOW_DUPLICATE' }));
      };

      const handles = new Map<number, WorkflowHandle>();
      const cancelSession = (handle: WorkflowHandle) => handle.cancel().catch(() => undefined); // one that has closed meanwhile
      const follow = async (position: number) => {
        const spec = specAt(position);
        try {
          // A session not yet started when the keeper stops is left for the sweep's next run.
          const handle = await startLimit(async () => (stop || fatal ? undefined : startOrFind(spec)));
          if (!handle) return;
          handles.set(position, handle);
          if (stop === 'cancel' || fatal) await cancelSession(handle);
          const outcome = await workflowResult<SessionOutcome>(handle);
          ledger.end(position, LEDGER_ENDS[endingOf(outcome.termination)]);
        } catch (error) {
          if (stop === 'leave') return;
          if (cancelledWorkflow(error)) {
            ledger.end(position, 'cancelled');
            // Cancelled by someone else (`allocbench cancel` cancels the sessions too): no session starts in its place if the sweep is cancelled.
            if (!stop && (await sweepCancelled())) stop = 'cancel';
            return;
          }
          ledger.end(position, 'failed');
          fatal ??= runStoreFailureIn(error);
          context.log.error('session workflow failed', { session: sessionKey(spec), error: String(error) });
        } finally {
          handles.delete(position);
        }
      };

      const running = new Set<Promise<void>>();
      const launch = (position: number) => {
        const run: Promise<void> = follow(position).finally(() => {
          running.delete(run);
          wake();
        });
        running.add(run);
      };
      const beat = () => context.heartbeat(ledger.state());
      beat();
      if (await sweepCancelled()) stop = 'cancel';
      const heartbeats = setInterval(beat, KEEPER_HEARTBEAT_MS);
      try {
        // Sessions started before a retry: followed again (a start takes the running one, or finds the closed one).
        for (const position of ledger.inFlight()) launch(position);
        for (;;) {
          if (stop || fatal) break;
          if (running.size >= input.config.window) {
            await changed();
            continue;
          }
          const position = ledger.take();
          if (position === undefined) break;
          launch(position);
        }
        let cancelling = false;
        while (running.size > 0 && stop !== 'leave') {
          if ((stop === 'cancel' || fatal) && !cancelling) {
            cancelling = true;
            await Promise.all([...handles.values()].map(cancelSession));
            continue; // sessions may have ended meanwhile
          }
          await changed();
        }
      } finally {
        clearInterval(heartbeats);
      }
      beat();
      if (stop) throw cancelReason;
      if (fatal)
        throw ApplicationFailure.create({
          type: RUN_STORE_FAILURE,
          message: fatal.message,
          details: fatal.details ?? undefined,
          nonRetryable: true,
        });
      return ledger.counts();
    },
  };
}

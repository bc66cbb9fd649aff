import {
  ActivityCancellationType,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { decodeClasses } from '../core/session/compact-codes.js';
import type { Termination } from '../core/session/termination.js';
import { nextMove, protocolRules, startProgress } from '../core/session/turn-protocol.js';
import { agentModel, sessionDirName } from '../core/sweep/session-spec.js';
import type { ModelActivities, ScriptActivities, SessionOutcome, StoreActivities } from '../protocol/activities.js';
import type { SessionInput } from '../protocol/session-workflow.js';
import { callsInSessionWorker, providerOf, providerTaskQueue, SANDBOX_TASK_QUEUE } from '../protocol/task-queues.js';

/**
 * A run of the session continues as new past this much history, or earlier
 * where Temporal suggests it, so no run's history reaches 1 MB: Temporal's own
 * suggestion comes at 4096 events, about 640 R3 calls and 870 KiB.
 */
const HISTORY_BYTES_PER_RUN = 512 * 1024;

/**
 * One seed session, at any rung: the turn protocol of the pure core, run
 * once. The workflow holds only the class sequence and the session's compact
 * progress; prompts, replies, code and attempts live in the run store (claim
 * check), so history stays small at any length. Each model call is one
 * activity, which records it and returns the progress after it; each
 * run_script call its reply made and the loop accepted runs on the sandbox
 * worker's queue. A split agent's calls go to its planner's or its builder's
 * model, as each move says. The session ends where the protocol says (the
 * stream's end, R3's B-th write), when a call reports a cap, or on a
 * mechanical failure. Cancelled (a cancel of its sweep), it lets the call or
 * script under way end and be recorded, records that it was cancelled, and
 * ends cancelled: run again, it goes on from its records.
 */
export async function sessionWorkflow(input: SessionInput): Promise<SessionOutcome> {
  const { runDir, spec } = input;
  // A cancel waits for the activity under way, so what it does is recorded before the session records its cancel.
  const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  // Reading and writing one session's files takes milliseconds, on the session's own worker: local activities, no task-queue
  // round trip (both are idempotent, so a worker lost mid-way just runs them again). The timeout is how long a dead worker
  // holds up the session.
  const store = proxyLocalActivities<StoreActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10 },
    cancellationType,
  });
  // The activity enforces the paper's attempt budget from its own records and sets each
  // delay; this policy only has to keep retrying across dead workers.
  const retry = { initialInterval: '1.5s', backoffCoefficient: 1, maximumAttempts: 20 };
  // In-session calls may wait for the worker's limit on the provider before they start: their timeout allows for it.
  // A dead worker is noticed by its workflow task's timeout instead, not by heartbeats.
  const modelActivities = (provider: string) =>
    callsInSessionWorker(provider, input.modelCalls ?? 'provider-queue')
      ? proxyLocalActivities<ModelActivities>({
          startToCloseTimeout: provider === 'policy' ? '1 minute' : '2 hours',
          retry,
          cancellationType,
        })
      : proxyActivities<ModelActivities>({
          taskQueue: providerTaskQueue(provider),
          startToCloseTimeout: '30 minutes',
          heartbeatTimeout: `${input.heartbeatSeconds}s`,
          retry,
          cancellationType,
        });
  const byProvider = new Map<string, ModelActivities>();
  const modelFor = (provider: string): ModelActivities => {
    let activities = byProvider.get(provider);
    if (!activities) byProvider.set(provider, (activities = modelActivities(provider)));
    return activities;
  };
  const sandbox = proxyActivities<ScriptActivities>({
    taskQueue: SANDBOX_TASK_QUEUE,
    // A script is limited to seconds; a silent worker died, and the activity records that on retry.
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: `${input.heartbeatSeconds}s`,
    retry: { initialInterval: '1s', maximumAttempts: 10 },
    cancellationType,
  });
  const session = { runDir, session: sessionDirName(spec) };
  try {
    return await playSession(input, { store, modelFor, sandbox });
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => store.recordCancelled(session));
    throw error;
  }
}

interface SessionActivities {
  readonly store: StoreActivities;
  readonly modelFor: (provider: string) => ModelActivities;
  readonly sandbox: ScriptActivities;
}

/** The session's turns from where its input says, to its end: its outcome, or a continue-as-new. */
async function playSession(input: SessionInput, { store, modelFor, sandbox }: SessionActivities): Promise<SessionOutcome> {
  const { runDir, spec } = input;
  const code = input.classes ?? (await store.prepareSession({ runDir, spec })).classes;
  const session = { runDir, session: sessionDirName(spec) };
  const rules = protocolRules(spec, decodeClasses(code));
  let progress = input.progress ?? startProgress(spec);
  let termination: Termination;
  for (;;) {
    const move = nextMove(progress, rules);
    if (move.kind === 'done') {
      termination = move.reason;
      break;
    }
    const result = await modelFor(providerOf(agentModel(spec, move.role).model)).takeStep({
      ...session,
      progress,
      caps: input.caps,
      ...(input.replay && { replay: input.replay }),
    });
    if (result.kind === 'finished') return result.outcome;
    if (result.kind === 'stopped') {
      termination = result.reason;
      break;
    }
    for (const index of result.runs) await sandbox.runScript({ ...session, call: move.call, index });
    progress = result.progress;
    const { continueAsNewSuggested, historySize } = workflowInfo();
    if (continueAsNewSuggested || historySize > HISTORY_BYTES_PER_RUN) {
      return continueAsNew<typeof sessionWorkflow>({ ...input, classes: code, progress });
    }
  }
  return store.finishSession({ ...session, termination });
}

import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { FAMILY_NAMES } from '../core/families/family.js';
import { decodeActions, decodeClasses, encodeActions } from '../core/session/compact-codes.js';
import { nextDecisionPoint } from '../core/session/replay.js';
import type { LoopState } from '../core/scripts/agent-loop.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { ModelActivities } from '../activities/model-activities.js';
import type { StoreActivities } from '../activities/store-activities.js';
import type { SessionOutcome } from '../activities/run-store/session-summary.js';
import type { Termination } from '../activities/run-store/transcript.js';
import { providerOf, providerTaskQueue } from '../workers/task-queues.js';
import { scriptSession } from './script-session.js';

export interface SessionInput {
  readonly runDir: string;
  readonly spec: SessionSpec;
  /** A dead worker's turn is retried after this long without a heartbeat. */
  readonly heartbeatSeconds: number;
  /** Carried over a continue-as-new: the class sequence, one character per item. */
  readonly classes?: string;
  /** Carried over a continue-as-new: the decisions so far, one character each. */
  readonly actions?: string;
  /** R3, carried over a continue-as-new: the agent loop's state. */
  readonly loop?: LoopState;
}

/**
 * One seed session. The workflow holds only the class sequence and the
 * actions taken, one character each; prompts, replies and attempts live in the
 * run store (claim check), so history stays small at any stream length. It
 * walks the session rules from the pure core and asks the model activity for
 * each decision turn, stopping early when a turn reports a cap or a mechanical
 * failure.
 */
export async function sessionWorkflow(input: SessionInput): Promise<SessionOutcome> {
  const { runDir, spec } = input;
  // Reading and writing one session's files takes milliseconds; the timeout is how long a dead worker holds up the session.
  const store = proxyActivities<StoreActivities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });
  const model = proxyActivities<ModelActivities>({
    taskQueue: providerTaskQueue(providerOf(spec.model)),
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: `${input.heartbeatSeconds}s`,
    // The activity enforces the paper's attempt budget from its own records and sets each
    // delay; this policy only has to keep retrying across dead workers.
    retry: { initialInterval: '1.5s', backoffCoefficient: 1, maximumAttempts: 20 },
  });
  if (spec.rung === 'R3') return scriptSession(input, model, store);
  const code = input.classes ?? (await store.prepareSession({ runDir, spec })).classes;
  const classes = decodeClasses(code);
  const setting = { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length };
  const decided = decodeActions(input.actions ?? '').map((action) => ({ action }));
  let termination: Termination = 'stream-end';
  for (let point = nextDecisionPoint(classes, setting, decided); point; point = nextDecisionPoint(classes, setting, decided)) {
    const result = await model.takeTurn({ runDir, spec, t: point.t });
    if (result.kind === 'stopped') {
      termination = result.reason;
      break;
    }
    decided.push({ action: result.action });
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof sessionWorkflow>({ ...input, classes: code, actions: encodeActions(decided.map((d) => d.action)) });
    }
  }
  return store.finishSession({ runDir, spec, termination });
}

import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { executes } from '../core/scripts/script-ledger.js';
import { decodeScriptActions, encodeScriptActions } from '../core/scripts/script-turn.js';
import type { ModelActivities } from '../activities/model-activities.js';
import type { ScriptActivities } from '../activities/script-activities.js';
import type { StoreActivities } from '../activities/store-activities.js';
import type { SessionOutcome } from '../activities/run-store/session-summary.js';
import type { Termination } from '../activities/run-store/transcript.js';
import { SANDBOX_TASK_QUEUE } from '../workers/task-queues.js';
import type { SessionInput, sessionWorkflow } from './session-workflow.js';

type ModelProxy = Pick<ModelActivities, 'takeScriptTurn'>;
type StoreProxy = Pick<StoreActivities, 'prepareSession' | 'finishSession'>;

/**
 * An R3 session: every item is a turn. The model's write or run executes on
 * the sandbox worker's queue; the session stops after the last write (unless
 * it is set to play the whole stream), at a cap, or on a mechanical failure.
 * Its state is the stream length and one character per turn played.
 */
export async function scriptSession(input: SessionInput, model: ModelProxy, store: StoreProxy): Promise<SessionOutcome> {
  const { runDir, spec } = input;
  const sandbox = proxyActivities<ScriptActivities>({
    taskQueue: SANDBOX_TASK_QUEUE,
    // A script is limited to seconds; a silent worker died, and the activity records that on retry.
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: `${input.heartbeatSeconds}s`,
    retry: { initialInterval: '1s', maximumAttempts: 10 },
  });
  const code = input.classes ?? (await store.prepareSession({ runDir, spec })).classes;
  const played = decodeScriptActions(input.actions ?? '');
  let writes = played.filter((kind) => kind === 'write').length;
  let termination: Termination = 'stream-end';
  for (let t = played.length + 1; t <= code.length; t++) {
    const result = await model.takeScriptTurn({ runDir, spec, t });
    if (result.kind === 'stopped') {
      termination = result.reason;
      break;
    }
    played.push(result.action);
    if (executes(result.action)) await sandbox.executeScript({ runDir, spec, t });
    if (result.action === 'write' && ++writes === spec.budget && spec.script.end === 'budget-exhausted') {
      termination = 'budget-exhausted';
      break;
    }
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof sessionWorkflow>({ ...input, classes: code, actions: encodeScriptActions(played) });
    }
  }
  return store.finishSession({ runDir, spec, termination });
}

import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { nextLoopEffect, startLoop } from '../core/scripts/agent-loop.js';
import { decodeClasses } from '../core/session/compact-codes.js';
import type { ModelActivities } from '../activities/model-activities.js';
import type { ScriptActivities } from '../activities/script-activities.js';
import type { StoreActivities } from '../activities/store-activities.js';
import type { SessionOutcome } from '../activities/run-store/session-summary.js';
import type { Termination } from '../activities/run-store/transcript.js';
import { SANDBOX_TASK_QUEUE } from '../workers/task-queues.js';
import type { SessionInput, sessionWorkflow } from './session-workflow.js';

type ModelProxy = Pick<ModelActivities, 'askModel'>;
type StoreProxy = Pick<StoreActivities, 'prepareSession' | 'finishSession'>;

/**
 * An R3 session: the agent loop of core/scripts/agent-loop.ts. Each model
 * call is one activity, which applies the loop's rules to the reply and
 * records it; each accepted run_script runs on the sandbox worker's queue.
 * The session ends after the B-th write (unless it plays the whole stream),
 * at a cap, or on a mechanical failure. Its state is the compact loop state;
 * the conversation stays in the run store.
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
  const rules = { classes: decodeClasses(code), budget: spec.budget, end: spec.script.end };
  let state = input.loop ?? startLoop();
  let termination: Termination;
  for (;;) {
    const effect = nextLoopEffect(state, rules);
    if (effect.kind === 'done') {
      termination = effect.reason;
      break;
    }
    const result = await model.askModel({ runDir, spec, state });
    if (result.kind === 'stopped') {
      termination = result.reason;
      break;
    }
    for (const [index, outcome] of result.step.outcomes.entries()) {
      if (outcome.kind === 'run') await sandbox.runScript({ runDir, spec, call: effect.call, index });
    }
    state = result.step.state;
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof sessionWorkflow>({ ...input, classes: code, loop: state });
    }
  }
  return store.finishSession({ runDir, spec, termination });
}

import { Context } from '@temporalio/activity';
import { nextMove } from '../core/session/turn-protocol.js';
import type { ModelActivities, StepInput, StepResult } from '../protocol/activities.js';
import { decisionTurn } from './decision-turn.js';
import { KeyedQueue } from './keyed-queue.js';
import { loopCall } from './loop-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { loadCallSession } from './session-context.js';
import { finishSession } from './store-activities.js';

/**
 * An in-session model activity goes on to the session's next call while that
 * call would end within this much of the activity's start (were it to take as
 * long as the one before): half a reference agent's start-to-close timeout.
 * Each batch's end is an activation of the workflow (the SDK's dispatch, the
 * workflow thread, the marker in history: about 3 ms of CPU), and sessions
 * whose calls take equal time end their batches together: at window 512 with
 * 1 s calls and 5 s batches, the 512 activations every 5 s took the worker
 * about a second to work through, every session waited for it (5–17% of the
 * limit lost between turns), and heartbeats of workflow tasks held open by
 * local activities came late (bench:scale). With 30 s batches a 60-turn
 * session ends two, and about 1% of the limit is lost between turns.
 */
const CALL_BATCH_MS = 30_000;

/** One model call: a decision turn at R0–R2 and the probe, a step of the agent loop at R3, as the turn protocol says. */
async function oneCall(providers: ProviderRegistry, input: StepInput) {
  const session = await loadCallSession(input);
  const result = session.move.kind === 'decide' ? await decisionTurn(providers, session) : await loopCall(providers, session);
  return { result, rules: session.rules, role: session.move.role };
}

/**
 * The model activity: the session's next call, recorded before it returns.
 *
 * In-session (a local activity, first attempt) it goes on to the calls after
 * it for up to CALL_BATCH_MS, each recorded as it is made, and returns the
 * progress after the last: it stops at the session's end, a stop (a cap, a
 * mechanical failure), or a call whose reply asks for script runs — that call
 * is left to the next activity, which finds it on record and returns its runs,
 * so the workflow runs them at the call it asked for. A batch that fails is
 * retried from its first call, alone (the activities after it batch again):
 * calls on record are used as recorded, never paid again, and a batch's
 * retries count against one call's retry policy only. On a provider queue
 * every call is its own activity (the queue's rate is per activity).
 *
 * A cancelled batch stops after the call under way, which is recorded.
 *
 * One call per session at a time in this process. A session's calls that run
 * in-session are local activities: when its workflow task times out under
 * load while a call is out, the task runs again and starts the same call
 * while the first still waits for its reply. The second waits for the first,
 * then finds its reply on record instead of paying for it again.
 */
export function createModelActivities(providers: ProviderRegistry): ModelActivities {
  const calls = new KeyedQueue();
  return {
    takeStep(input) {
      const { info, cancellationSignal } = Context.current();
      const batch = info.isLocal && info.attempt === 1;
      return calls.run(`${input.runDir}\0${input.session}`, async () => {
        const started = Date.now();
        let callStarted = started;
        let { result, rules, role } = await oneCall(providers, input);
        // The next call is made if it would end within the budget were it to take as long as the last one.
        // A cancelled session (a cancel of its sweep) makes no call after the one under way.
        while (
          batch &&
          !cancellationSignal.aborted &&
          result.kind === 'step' &&
          result.runs.length === 0 &&
          2 * Date.now() - callStarted - started < CALL_BATCH_MS
        ) {
          const next = nextMove(result.progress, rules);
          // A split agent's other role may be another model, on another provider: its calls are the workflow's to place.
          if (next.kind === 'done' || next.role !== role) break;
          const previous: StepResult = result;
          callStarted = Date.now();
          ({ result, rules, role } = await oneCall(providers, { ...input, progress: result.progress }));
          if (result.kind === 'step' && result.runs.length > 0) return previous;
        }
        // The call that ends the session writes its summary too: at a sweep's end every session would otherwise
        // wait for one more local activity, behind every other session's (bench:scale).
        const end = result.kind === 'step' && result.runs.length === 0 ? nextMove(result.progress, rules) : undefined;
        if (end?.kind === 'done') return { kind: 'finished', outcome: await finishSession({ ...input, termination: end.reason }) };
        return result;
      });
    },
  };
}

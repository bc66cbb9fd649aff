import type { ModelActivities } from '../protocol/activities.js';
import { decisionTurn } from './decision-turn.js';
import { KeyedQueue } from './keyed-queue.js';
import { loopCall } from './loop-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { loadCallSession } from './session-context.js';

/**
 * The model activity, one per call of any rung: a decision turn at R0–R2 and
 * the probe, a step of the agent loop at R3, as the turn protocol says.
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
      return calls.run(`${input.runDir}\0${input.session}`, async () => {
        const session = await loadCallSession(input);
        return session.move.kind === 'decide' ? decisionTurn(providers, session) : loopCall(providers, session);
      });
    },
  };
}

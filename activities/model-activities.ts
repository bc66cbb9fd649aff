import type { ModelActivities } from '../protocol/activities.js';
import { decisionTurn } from './decision-turn.js';
import { loopCall } from './loop-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { loadCallSession } from './session-context.js';

/**
 * The model activity, one per call of any rung: a decision turn at R0–R2 and
 * the probe, a step of the agent loop at R3, as the turn protocol says.
 */
export function createModelActivities(providers: ProviderRegistry): ModelActivities {
  return {
    async takeStep({ runDir, session: name, progress }) {
      const session = await loadCallSession({ runDir, session: name }, progress);
      return session.move.kind === 'decide' ? decisionTurn(providers, session) : loopCall(providers, session);
    },
  };
}

import type { Observation } from '../session/observation.js';
import type { Action } from '../session/session-state.js';

/**
 * An agent that decides from an Observation only. The engine reuses the
 * arrays inside an observation, so a policy must not keep references to them.
 */
export interface Policy {
  readonly name: string;
  decide(observation: Observation): Action;
}

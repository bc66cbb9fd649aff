import type { Inputs } from '../../core/families/family.js';
import type { SplitRole } from '../../core/rungs/rung.js';
import type { Observation } from '../../core/session/observation.js';

/**
 * What a reference-policy agent decides from: the information the call's
 * prompt carries, structured, given by the activity that makes the call. A
 * model sees only its messages and tools (GenerateRequest); the reference
 * agents are the one kind of provider that gets this view as well.
 */
export interface AgentView {
  readonly observation: Observation;
  /** R3: the current problem's named values, shown in its message. */
  readonly inputs?: Inputs;
  /** The role the agent plays in a split agent; absent for a single agent. */
  readonly role?: SplitRole;
}

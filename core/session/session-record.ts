import type { Action, SessionRules } from './session-state.js';

/** One decision turn of a session. */
export interface DecisionRecord {
  /** Turn, 1-based. */
  readonly t: number;
  readonly classId: number;
  /** Occurrence of the class at this turn, 1-based. */
  readonly occurrence: number;
  readonly action: Action;
  /** False when the agent gave no valid decision; the action is then 'pass' (paper B.6). */
  readonly resolved: boolean;
}

/** Everything needed to score a session: the class sequence, the rules and the decisions. */
export interface SessionRecord {
  readonly classes: readonly number[];
  readonly rules: SessionRules;
  readonly decisions: readonly DecisionRecord[];
}

import type { Action, SessionRules } from './session-state.js';

/**
 * Why a decision turn has no valid decision. The model-level failures of
 * Appendix B.6 are not retried and default to pass; 'truncated' marks the
 * decision turns a session never reached because it stopped early (token or
 * cost cap, mechanical failure).
 */
export const DECISION_FAILURES = [
  'no-decision',
  'several-decisions',
  'unknown-function',
  'malformed-arguments',
  'unparsable',
  'truncated',
] as const;
export type DecisionFailure = (typeof DECISION_FAILURES)[number];

/** One decision turn of a session. */
export interface DecisionRecord {
  /** Turn, 1-based. */
  readonly t: number;
  readonly classId: number;
  /** Occurrence of the class at this turn, 1-based. */
  readonly occurrence: number;
  readonly action: Action;
  /** False when there is no valid decision; the action is then 'pass' (paper B.6). */
  readonly resolved: boolean;
  /** Set exactly when `resolved` is false. */
  readonly failure?: DecisionFailure;
}

/** Everything needed to score a session: the class sequence, the rules and the decisions. */
export interface SessionRecord {
  readonly classes: readonly number[];
  readonly rules: SessionRules;
  readonly decisions: readonly DecisionRecord[];
}

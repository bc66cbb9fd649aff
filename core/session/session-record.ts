import type { Action, SessionRules } from './session-state.js';

/**
 * Why a decision turn has no valid decision. The model-level failures of
 * Appendix B.6 are not retried and default to pass ('cut-off': the reply hit
 * the output limit before giving one); 'truncated' marks the
 * decision turns a session never reached because it stopped early (token or
 * cost cap, mechanical failure). Two occur only in imported runs: the
 * authors' harness recorded a call that failed its retries as a pass and went
 * on ('transport-error', their `error`), where ours ends the session; and
 * 'unknown-how' marks a reading their code never writes, whose stored
 * decision is kept.
 */
export const DECISION_FAILURES = [
  'no-decision',
  'cut-off',
  'several-decisions',
  'unknown-function',
  'malformed-arguments',
  'unparsable',
  'truncated',
  'transport-error',
  'unknown-how',
] as const;
export type DecisionFailure = (typeof DECISION_FAILURES)[number];

/**
 * Which rule read the decision: at R0 the last `DECISION:` line ('tag'), a
 * KEEP/PASS word leading the reply ('lead') or any KEEP/PASS token ('scan'),
 * as the paper's harness read replies; 'strict' under --strict-parse; 'tool'
 * at the tool rungs.
 */
export type ReadRule = 'tag' | 'lead' | 'scan' | 'strict' | 'tool';

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
  /** Which rule read the decision (R0: the DECISION line, a leading or a stray KEEP/PASS; tool rungs: the call). */
  readonly how?: ReadRule;
  /**
   * Why the reply broke the format: always set when `resolved` is false; on a
   * resolved turn only 'several-decisions' (the first decisive call applied)
   * or, imported, 'unknown-how' (the stored commit applied), which still count
   * the turn as unparsed.
   */
  readonly failure?: DecisionFailure;
}

/** Everything needed to score a session: the class sequence, the rules and the decisions. */
export interface SessionRecord {
  readonly classes: readonly number[];
  readonly rules: SessionRules;
  readonly decisions: readonly DecisionRecord[];
}

import type { DecisionFailure, ReadRule } from '../core/session/session-record.js';
import type { Action } from '../core/session/session-state.js';

/**
 * How the authors' harness read a decision reply (a transcript entry's `how`)
 * in our terms. Their code writes, at R0, `tag`, `lead`, `scan` (our read
 * rules), `default` (no KEEP/PASS) and `error` (the call failed its retries);
 * at the tool rungs `tool` (one decisive call), `both` (several: the first
 * applies, the turn counts as unparsed), `unknown` (only unknown tools),
 * `default` (no call), `error` and, at R2, `malformed_args` (a claim without
 * usable code). Every value but the four clean readings counts in their
 * `unparsed` and, but for `both`, stores the pass. A value none of their code
 * writes keeps its stored decision, counts as unparsed and is reported.
 */
export interface StoredReading {
  readonly action: Action;
  readonly resolved: boolean;
  readonly how?: ReadRule;
  readonly failure?: DecisionFailure;
  /** The stored value is not one the authors' harness writes. */
  readonly unknown: boolean;
}

const CLEAN: Readonly<Record<string, ReadRule>> = { tag: 'tag', lead: 'lead', scan: 'scan', tool: 'tool' };
const UNRESOLVED: Readonly<Record<string, DecisionFailure>> = {
  default: 'no-decision',
  unknown: 'unknown-function',
  malformed_args: 'malformed-arguments',
  error: 'transport-error',
};

export function storedReading(how: string, storedAction: Action): StoredReading {
  const rule = CLEAN[how];
  if (rule) return { action: storedAction, resolved: true, how: rule, unknown: false };
  if (how === 'both') return { action: storedAction, resolved: true, how: 'tool', failure: 'several-decisions', unknown: false };
  const failure = UNRESOLVED[how];
  // Their failures store the pass; should one hold a commit, it applied, and the turn still counts as unparsed.
  if (failure) return { action: storedAction, resolved: storedAction === 'commit', failure, unknown: false };
  return { action: storedAction, resolved: storedAction === 'commit', failure: 'unknown-how', unknown: true };
}

import type { StopReason } from '../chat/messages.js';
import type { DecisionFailure, DecisionRecord } from '../session/session-record.js';
import type { ParsedDecision } from './parse-reply.js';

/** A reply read into the rung's decision, or into a model-level failure. */
export type Parsed = { readonly resolved: true } | { readonly resolved: false; readonly failure: DecisionFailure };

/**
 * A reply that stopped at the output limit without giving a decision is
 * unresolved as 'cut-off' (HARNESS.md, limits), whatever the reader found
 * missing; a decision given before the limit stands.
 */
export function cutOff<P extends Parsed>(parsed: P, response: { readonly stopReason: StopReason | null }, maxOutputTokens: number): P {
  if (parsed.resolved || response.stopReason !== 'length') return parsed;
  const detail = 'detail' in parsed && typeof parsed.detail === 'string' ? `; ${parsed.detail}` : '';
  return { ...parsed, failure: 'cut-off', detail: `reply stopped at the ${maxOutputTokens}-token output limit${detail}` };
}

/** A decision turn's record: where it was asked, and the reply as read. */
export function decisionRecord(turn: Pick<DecisionRecord, 't' | 'classId' | 'occurrence'>, parsed: ParsedDecision): DecisionRecord {
  return {
    ...turn,
    action: parsed.action,
    resolved: parsed.resolved,
    ...(parsed.resolved && { how: parsed.how }),
    ...(parsed.failure && { failure: parsed.failure }),
  };
}

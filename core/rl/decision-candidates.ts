import type { ModelReply } from '../chat/messages.js';
import type { DecisionRung } from '../rungs/rung.js';
import type { Action } from '../session/session-state.js';
import { decisionTools, NO_ARGUMENTS } from '../rungs/tools.js';

/** A reply the constrained-decision mode may choose: the parser reads it as `action`. */
export interface Candidate {
  readonly action: Action;
  readonly reply: ModelReply;
}

/**
 * The two replies a constrained-decision trainer scores instead of sampling
 * free text (for a small model that never writes the format, SmolLM2 say):
 * at R0 the DECISION line the paper's instruction asks for, at the probe and
 * R1 a call of the keep or the pass tool. R2's claim needs code, which no
 * fixed reply carries: there only the skip is offered.
 */
export function decisionCandidates(rung: DecisionRung): Candidate[] {
  if (rung === 'R0') {
    return [
      { action: 'commit', reply: { text: 'DECISION: KEEP', toolCalls: [] } },
      { action: 'pass', reply: { text: 'DECISION: PASS', toolCalls: [] } },
    ];
  }
  return decisionTools(rung)
    .filter((tool) => tool.arguments === NO_ARGUMENTS)
    .map((tool) => ({ action: tool.action, reply: { text: '', toolCalls: [{ id: 'call_0', name: tool.name, arguments: '{}' }] } }));
}

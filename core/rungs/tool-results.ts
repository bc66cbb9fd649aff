import type { ModelReply } from '../chat/messages.js';
import type { DecisionPoint } from '../session/replay.js';
import type { Framing } from './framing.js';
import type { ParsedDecision } from './parse-reply.js';
import { isUrnRung } from './rung.js';
import { attributeValue, VOCABULARIES } from './vocabulary.js';

/** What each tool call of a reply is answered with (every call gets a result, as providers require). */
export interface ToolResult {
  readonly toolCallId: string;
  readonly content: string;
}

function outcome(framing: Framing, point: DecisionPoint, decision: ParsedDecision): string {
  const urn = isUrnRung(framing.rung);
  if (!decision.resolved) {
    return `Not accepted (${decision.detail}). No valid decision was recorded, so this ${urn ? VOCABULARIES[framing.reskin].item : 'problem'} was passed.`;
  }
  if (!urn) {
    return decision.action === 'commit'
      ? 'Claimed. This problem and every future problem of its type will be solved automatically.'
      : 'Skipped. This problem scores zero.';
  }
  const v = VOCABULARIES[framing.reskin];
  const value = attributeValue(v, point.observation.label);
  return decision.action === 'commit' ? `Kept. This ${v.item} and every future ${value} ${v.item} are collected.` : 'Passed.';
}

export function toolResults(framing: Framing, point: DecisionPoint, reply: ModelReply, decision: ParsedDecision): ToolResult[] {
  const content = outcome(framing, point, decision);
  return reply.toolCalls.map((call) => ({ toolCallId: call.id, content }));
}

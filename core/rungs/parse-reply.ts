import type { ModelReply } from '../chat/messages.js';
import type { DecisionFailure } from '../session/session-record.js';
import type { Action } from '../session/session-state.js';
import type { DecisionRung } from './rung.js';
import { decisionTools } from './tools.js';

/** A reply turned into a decision, or into a model-level failure that defaults to pass (paper B.6). */
export type ParsedDecision =
  | { readonly resolved: true; readonly action: Action }
  | { readonly resolved: false; readonly action: 'pass'; readonly failure: Exclude<DecisionFailure, 'truncated'>; readonly detail: string };

const fail = (failure: Exclude<DecisionFailure, 'truncated'>, detail: string): ParsedDecision => ({
  resolved: false,
  action: 'pass',
  failure,
  detail,
});

/** R0: the reply must state DECISION: KEEP or DECISION: PASS, once (or consistently). */
function parseText(text: string): ParsedDecision {
  const stated = [...text.matchAll(/DECISION\s*:\s*\**\s*([A-Za-z]*)/gi)].map((m) => (m[1] ?? '').toUpperCase());
  if (stated.length === 0) return fail('no-decision', 'no DECISION line');
  const unknown = stated.find((word) => word !== 'KEEP' && word !== 'PASS');
  if (unknown !== undefined) return fail('unparsable', `DECISION: ${unknown || '(empty)'} is neither KEEP nor PASS`);
  if (new Set(stated).size > 1) return fail('several-decisions', 'both KEEP and PASS stated');
  return { resolved: true, action: stated[0] === 'KEEP' ? 'commit' : 'pass' };
}

/** Tool rungs: exactly one call to one of the rung's two tools, with valid arguments. */
function parseToolCalls(rung: DecisionRung, reply: ModelReply): ParsedDecision {
  const tools = decisionTools(rung);
  const unknown = reply.toolCalls.find((call) => !tools.some((tool) => tool.name === call.name));
  if (unknown) return fail('unknown-function', `unknown function ${unknown.name}`);
  if (reply.toolCalls.length === 0) return fail('no-decision', 'no tool call');
  if (reply.toolCalls.length > 1) return fail('several-decisions', `${reply.toolCalls.length} decisive calls`);
  const [call] = reply.toolCalls;
  const tool = tools.find((t) => t.name === call?.name);
  if (!call || !tool) return fail('no-decision', 'no tool call');
  let parsed: unknown;
  try {
    parsed = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return fail('malformed-arguments', `arguments of ${call.name} are not JSON`);
  }
  const valid = tool.arguments.safeParse(parsed);
  if (!valid.success) return fail('malformed-arguments', `${call.name}: ${valid.error.issues[0]?.message ?? 'invalid arguments'}`);
  return { resolved: true, action: tool.action };
}

export function parseReply(rung: DecisionRung, reply: ModelReply): ParsedDecision {
  return rung === 'R0' ? parseText(reply.text) : parseToolCalls(rung, reply);
}

import type { ModelReply } from '../chat/messages.js';
import type { DecisionFailure } from '../session/session-record.js';
import { SCRIPT_TOOL_ARGUMENTS, SCRIPT_TOOL_NAMES, type ScriptToolName } from './script-tools.js';

/** What an R3 reply asks for, once its one tool call is validated. */
export type ScriptCall =
  | { readonly tool: 'write_script'; readonly code: string }
  | { readonly tool: 'run_script'; readonly scriptId: string }
  | { readonly tool: 'answer'; readonly answer: string };

export type ModelFailure = Exclude<DecisionFailure, 'truncated'>;

/** A reply turned into a call, or into a model-level failure (paper B.6): not retried, the problem scores zero. */
export type ParsedScriptCall =
  | { readonly resolved: true; readonly call: ScriptCall }
  | { readonly resolved: false; readonly failure: ModelFailure; readonly detail: string };

const fail = (failure: ModelFailure, detail: string): ParsedScriptCall => ({ resolved: false, failure, detail });

/**
 * A numeric `answer` as the model wrote it: JSON.parse rounds an integer beyond
 * 2^53 to a double, so its digits are read back from the arguments' text.
 */
function answerText(answer: unknown, argumentsText: string): string {
  if (typeof answer !== 'number') return String(answer).trim();
  const literals = [...argumentsText.matchAll(/"answer"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)];
  const literal = literals.length === 1 ? literals[0]?.[1] : undefined;
  return literal !== undefined && Number(literal) === answer ? literal : String(answer);
}

const isScriptTool = (name: string): name is ScriptToolName => (SCRIPT_TOOL_NAMES as readonly string[]).includes(name);

/** Exactly one call to one of R3's tools, with valid arguments. */
export function parseScriptCall(reply: ModelReply): ParsedScriptCall {
  const unknown = reply.toolCalls.find((call) => !isScriptTool(call.name));
  if (unknown) return fail('unknown-function', `unknown function ${unknown.name}`);
  const [call, ...more] = reply.toolCalls;
  if (!call || !isScriptTool(call.name)) return fail('no-decision', 'no tool call');
  if (more.length > 0) return fail('several-decisions', `${reply.toolCalls.length} tool calls`);
  let raw: unknown;
  try {
    raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return fail('malformed-arguments', `arguments of ${call.name} are not JSON`);
  }
  const valid = SCRIPT_TOOL_ARGUMENTS[call.name].safeParse(raw);
  if (!valid.success) return fail('malformed-arguments', `${call.name}: ${valid.error.issues[0]?.message ?? 'invalid arguments'}`);
  const args = valid.data as Record<string, unknown>;
  switch (call.name) {
    case 'write_script':
      return { resolved: true, call: { tool: 'write_script', code: String(args.code) } };
    case 'run_script':
      return { resolved: true, call: { tool: 'run_script', scriptId: String(args.script_id) } };
    case 'answer':
      return { resolved: true, call: { tool: 'answer', answer: answerText(args.answer, call.arguments) } };
  }
}

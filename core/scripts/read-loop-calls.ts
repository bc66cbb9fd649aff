import type { ModelReply } from '../chat/messages.js';
import { LOOP_TOOL_ARGUMENTS, LOOP_TOOL_NAMES, type LoopToolName } from './loop-tools.js';

/** One tool call of an R3 reply, its arguments checked. */
export type LoopCall =
  | { readonly tool: 'write_script'; readonly name: string; readonly code: string }
  | { readonly tool: 'run_script'; readonly name: string; readonly inputs: Readonly<Record<string, unknown>> }
  | { readonly tool: 'list_scripts' }
  | { readonly tool: 'read_script'; readonly name: string }
  | { readonly tool: 'submit_answer'; readonly value: string }
  /** A tool the loop does not have: answered with an error, nothing else happens. */
  | { readonly tool: 'unknown-tool'; readonly name: string; readonly detail: string }
  /** Arguments that are not valid: answered with an error, nothing else happens. */
  | { readonly tool: 'invalid'; readonly detail: string };

/** What the loop's rules need of a call: the tool and the script it names (code, inputs and values stay in the run store). */
export type LoopCallHead = { readonly tool: LoopCall['tool']; readonly name?: string };

export const headOf = (call: LoopCall): LoopCallHead => ('name' in call ? { tool: call.tool, name: call.name } : { tool: call.tool });

/**
 * A submitted number as the model wrote it: JSON.parse rounds an integer
 * beyond 2^53 to a double, so its digits are read back from the arguments' text.
 */
function valueText(value: unknown, argumentsText: string): string {
  if (typeof value !== 'number') return String(value).trim();
  const literals = [...argumentsText.matchAll(/"value"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g)];
  const literal = literals.length === 1 ? literals[0]?.[1] : undefined;
  return literal !== undefined && Number(literal) === value ? literal : String(value);
}

const isLoopTool = (name: string): name is LoopToolName => (LOOP_TOOL_NAMES as readonly string[]).includes(name);

/** Every tool call of a reply, in order, each checked against its tool's schema. */
export function readLoopCalls(reply: ModelReply): LoopCall[] {
  return reply.toolCalls.map((call): LoopCall => {
    if (!isLoopTool(call.name)) return { tool: 'unknown-tool', name: call.name, detail: `there is no tool named ${call.name}` };
    let raw: unknown;
    try {
      raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      return { tool: 'invalid', detail: `the arguments of ${call.name} are not JSON` };
    }
    const valid = LOOP_TOOL_ARGUMENTS[call.name].safeParse(raw);
    if (!valid.success) return { tool: 'invalid', detail: `${call.name}: ${valid.error.issues[0]?.message ?? 'invalid arguments'}` };
    const args = valid.data as Record<string, unknown>;
    switch (call.name) {
      case 'write_script':
        return { tool: 'write_script', name: String(args.name), code: String(args.code) };
      case 'run_script':
        return { tool: 'run_script', name: String(args.name), inputs: args.inputs as Record<string, unknown> };
      case 'list_scripts':
        return { tool: 'list_scripts' };
      case 'read_script':
        return { tool: 'read_script', name: String(args.name) };
      case 'submit_answer':
        return { tool: 'submit_answer', value: valueText(args.value, call.arguments) };
    }
  });
}

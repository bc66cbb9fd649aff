import type { ToolCall } from './messages.js';

/*
 * Local models served without a strict tool-call parser often leave the call in
 * their text: a `<tool_call>{…}</tool_call>` block (Qwen's own format) or a
 * fenced JSON object naming a tool. The paper's harness read those as calls
 * (HARNESS.md, local models); so do we, for the tools offered only.
 */

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FENCED = /```(?:json)?\s*(\{[\s\S]*?\})\s*```/g;

function callFrom(json: string, tools: ReadonlySet<string>, index: number): ToolCall | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { name, arguments: args, parameters } = parsed as { name?: unknown; arguments?: unknown; parameters?: unknown };
  if (typeof name !== 'string' || !tools.has(name)) return null;
  const given = args ?? parameters ?? {};
  return { id: `${RECOVERED}${index + 1}`, name, arguments: typeof given === 'string' ? given : JSON.stringify(given) };
}

const RECOVERED = 'recovered-';

/** Whether a call was recovered from a reply's text (rather than given as a call). */
export const isRecoveredCall = (call: ToolCall): boolean => call.id.startsWith(RECOVERED);

/** The tool calls a reply's text holds, in order: tagged blocks first; fenced JSON objects only when there are none. */
export function recoverToolCalls(text: string, toolNames: readonly string[]): ToolCall[] {
  const tools = new Set(toolNames);
  const read = (pattern: RegExp) =>
    [...text.matchAll(pattern)].map((match, i) => callFrom(match[1] ?? '', tools, i)).filter((call): call is ToolCall => call !== null);
  const tagged = read(TAGGED);
  return tagged.length > 0 ? tagged : read(FENCED);
}

import type { RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';

type WireMessage = {
  readonly role: string;
  readonly content: string | null;
  readonly tool_calls?: readonly { readonly function: { readonly name: string } }[];
};

/** Where a scripted R3 model stands, read from the OpenAI-format conversation it is sent. */
export interface LoopPosition {
  /** The current problem, 1-based, and its named values (what solve(inputs) receives). */
  readonly t: number;
  readonly inputs: Record<string, unknown>;
  /** The tools it has called on this problem so far, in order. */
  readonly called: readonly string[];
  /** The last tool result, when the request ends with one. */
  readonly lastResult?: { readonly ok: boolean; readonly returned?: unknown };
}

export function loopPosition(request: RecordedRequest): LoopPosition {
  const messages = (request.body?.messages ?? []) as WireMessage[];
  let opened = messages.length - 1;
  while (opened >= 0 && !(messages[opened]?.role === 'user' && /^Problem \d+ of/.test(messages[opened]?.content ?? ''))) opened--;
  const problem = messages[opened]?.content ?? '';
  const t = Number(/^Problem (\d+) of/.exec(problem)?.[1]);
  if (!Number.isInteger(t)) throw new Error('loop model: no problem message in the conversation');
  const inputs = JSON.parse(/Named values: (.*)/.exec(problem)?.[1] ?? '{}') as Record<string, unknown>;
  const since = messages.slice(opened + 1);
  const called = since.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((call) => call.function.name) : []));
  const last = since.at(-1);
  return {
    t,
    inputs,
    called,
    ...(last?.role === 'tool' && { lastResult: JSON.parse(last.content ?? '{}') as LoopPosition['lastResult'] }),
  };
}

/**
 * The reply of a scripted R3 model, one tool call per model call, as the loop
 * needs them: on a problem it has a script for (code), write_script, then
 * run_script on the problem's inputs, then submit_answer with what the script
 * returned (or `fallback` when it returned nothing); without a script, submit
 * `fallback` at once.
 */
export function loopReply(request: RecordedRequest, model: string, code: string | undefined, fallback: string) {
  const { t, inputs, called, lastResult } = loopPosition(request);
  const name = `script-${t}`;
  const id = `call_${t}_${called.length + 1}`;
  const call =
    code !== undefined && called.length === 0
      ? functionCall(id, 'write_script', JSON.stringify({ name, code }))
      : code !== undefined && called.at(-1) === 'write_script'
        ? functionCall(id, 'run_script', JSON.stringify({ name, inputs }))
        : functionCall(
            id,
            'submit_answer',
            JSON.stringify({ value: lastResult?.ok && lastResult.returned !== undefined ? String(lastResult.returned) : fallback }),
          );
  return { json: chatCompletion({ tool_calls: [call] }, {}, model) };
}

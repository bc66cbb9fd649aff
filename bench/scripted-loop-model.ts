import { familyOfInputs } from '../core/families/registry.js';
import { REFERENCE_SCRIPTS } from '../activities/providers/reference-scripts.js';

/*
 * A scripted R3 model for long sessions (bench/r3-long-bench.ts and the
 * long-session test): it reads the OpenAI chat.completions conversation it is
 * sent and answers with one tool call, deterministic in that conversation, so
 * a resumed session asks it exactly what an undisturbed one would.
 */

export interface WireMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
}

const scriptName = (family: string) => `solve-${family}`;

/**
 * The next tool call, read from the conversation alone. Problem t of T is
 * given calls up to round(plan.calls × t / T) in all: it pads with list_scripts and
 * read_script, then (on a family's first problem, while `plan.writes` last)
 * write_script, run_script when its family has a script, and submit_answer
 * with what the script returned ('0' without one).
 */
export interface ScriptedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export function scriptedLoopCall(
  messages: readonly WireMessage[],
  plan: { readonly calls: number; readonly writes: number },
): ScriptedCall {
  let opened = messages.length - 1;
  while (opened >= 0 && !(messages[opened]?.role === 'user' && /^Problem \d+ of \d+/.test(messages[opened]?.content ?? ''))) opened--;
  const problem = messages[opened]?.content ?? '';
  const [, t, horizon] = (/^Problem (\d+) of (\d+)/.exec(problem) ?? []).map(Number);
  if (!t || !horizon) throw new Error('scripted model: no problem message in the conversation');
  const inputs = JSON.parse(/Named values: (.*)/.exec(problem)?.[1] ?? '{}') as Record<string, unknown>;
  const assistant = messages.filter((m) => m.role === 'assistant');
  const callsOf = (list: readonly WireMessage[]) => list.flatMap((m) => m.tool_calls ?? []);
  const written = new Set(
    callsOf(assistant)
      .filter((call) => call.function.name === 'write_script')
      .map((call) => (JSON.parse(call.function.arguments) as { name: string }).name),
  );
  const since = messages.slice(opened + 1);
  const here = callsOf(since.filter((m) => m.role === 'assistant')).map((call) => call.function.name);
  const family = familyOfInputs(inputs)?.name;
  const name = family && scriptName(family);
  const write = name !== undefined && !written.has(name) && written.size < plan.writes;
  const runnable = name !== undefined && (written.has(name) || write);
  const sequence = [
    ...(write && !here.includes('write_script') ? ['write_script'] : []),
    ...(runnable && !here.includes('run_script') ? ['run_script'] : []),
    'submit_answer',
  ];
  const callIndex = assistant.length + 1;
  const due = Math.round((plan.calls * t) / horizon);
  const started = here.includes('write_script') || here.includes('run_script');
  const next = started || callIndex - 1 + sequence.length >= due ? (sequence[0] as string) : 'pad';
  switch (next) {
    case 'write_script':
      return { name: next, args: { name, code: REFERENCE_SCRIPTS[family as keyof typeof REFERENCE_SCRIPTS] } };
    case 'run_script':
      return { name: next, args: { name, inputs } };
    case 'submit_answer': {
      const ran = callsOf(since).find((call) => call.function.name === 'run_script');
      const result = since.find((m) => m.role === 'tool' && m.tool_call_id === ran?.id);
      const returned = result ? (JSON.parse(result.content ?? '{}') as { ok?: boolean; returned?: unknown }) : undefined;
      return { name: next, args: { value: returned?.ok && returned.returned !== undefined ? String(returned.returned) : '0' } };
    }
    default: {
      const names = [...written];
      const pads = here.length;
      return pads % 2 === 0 || names.length === 0
        ? { name: 'list_scripts', args: {} }
        : { name: 'read_script', args: { name: names[(t + pads) % names.length] } };
    }
  }
}

/** The chat.completions reply carrying the call, the `index`-th of the session. */
export function scriptedCompletion(call: ScriptedCall, index: number, model: string) {
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            { id: `call_${index}_${call.name}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
  };
}

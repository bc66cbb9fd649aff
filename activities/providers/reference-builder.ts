import { familyOfInputs } from '../../core/families/registry.js';
import type { ChatMessage, ModelReply } from '../../core/chat/messages.js';
import { LOOP_FORMAT_REMINDER } from '../../core/scripts/loop-messages.js';
import type { Action } from '../../core/session/session-state.js';
import type { AgentView } from './agent-view.js';
import type { GenerateRequest } from './provider.js';
import { BROKEN_SCRIPT, REFERENCE_SCRIPTS } from './reference-scripts.js';

/** The R3 faults a policy agent can be told to inject, by problem. */
export interface BuilderFaults {
  /** Submit a correct answer worked out by hand, without a script. */
  readonly hand: ReadonlySet<number>;
  /** First run the newest script of another class (refused by the harness). */
  readonly cross: ReadonlySet<number>;
  /** Write a script that throws instead of the reference one, when writing. */
  readonly broken: ReadonlySet<number>;
  /** Reply this many times without a tool call first (two in a row give the problem up). */
  readonly silent: ReadonlyMap<number, number>;
  /** Write a script even with no writes left (refused by the harness). */
  readonly overBudget: ReadonlySet<number>;
  /** Submit a wrong answer (the correct one plus one). */
  readonly wrong: ReadonlySet<number>;
}

/** An answer that is never correct: the builder declines to hand-solve. */
export const DECLINED_ANSWER = 'pass';

/** The agent's name for the script of a class label. */
const scriptFor = (label: number) => `type-${label}`;

/** What the agent did since the current problem was shown: its replies and the last tool result. */
function sinceProblem(messages: readonly ChatMessage[]) {
  let opened = messages.length - 1;
  while (opened >= 0 && !(messages[opened]?.role === 'user' && messages[opened]?.content !== LOOP_FORMAT_REMINDER)) opened--;
  const since = messages.slice(opened + 1);
  const replies = since.flatMap((m) => (m.role === 'assistant' ? [m] : []));
  const last = since.at(-1);
  return {
    calls: replies.flatMap((reply) => reply.toolCalls),
    silent: replies.filter((reply) => reply.toolCalls.length === 0).length,
    lastResult: last?.role === 'tool' ? (JSON.parse(last.content) as { ok: boolean; returned?: unknown }) : undefined,
  };
}

/**
 * The R3 reference builder: the policy's decision played through the loop's
 * tools as an agent would. Where the policy commits it writes the reference
 * script for the family (recognized from the named values' key set, as a
 * model would recognize the problem), then runs it on the problem's inputs and
 * submits what it returned; on a class with a script it runs and submits;
 * otherwise it submits an answer that cannot score.
 */
export function builderReply(
  request: GenerateRequest,
  view: AgentView,
  decide: () => Action,
  faults: BuilderFaults,
  rationale: string,
): ModelReply {
  const o = view.observation;
  const t = o.turn;
  const inputs = view.inputs ?? {};
  const family = familyOfInputs(inputs);
  const done = sinceProblem(request.messages);
  const call = (name: string, args: Record<string, unknown>): ModelReply => ({
    text: rationale,
    toolCalls: [{ id: `call_${t}_${done.calls.length + done.silent + 1}`, name, arguments: JSON.stringify(args) }],
  });
  const tried = (name: string) => done.calls.some((c) => c.name === name);
  const own = scriptFor(o.label);
  const submit = (value: unknown) => {
    const answer = faults.wrong.has(t) && family ? (family.solve(inputs) + 1n).toString() : value;
    return call('submit_answer', { value: answer });
  };

  if (done.silent < (faults.silent.get(t) ?? 0)) return { text: 'Let me think about this one.', toolCalls: [] };
  const foreign = o.held.filter((label) => label !== o.label).at(-1);
  if (faults.cross.has(t) && foreign !== undefined && !tried('run_script')) return call('run_script', { name: scriptFor(foreign), inputs });
  if (faults.overBudget.has(t) && o.remaining === 0 && !tried('write_script') && family)
    return call('write_script', { name: own, code: REFERENCE_SCRIPTS[family.name] });
  const ranOwn = done.calls.some((c) => c.name === 'run_script' && c.arguments.includes(JSON.stringify(own)));
  if (ranOwn) return submit(done.lastResult?.ok ? done.lastResult.returned : DECLINED_ANSWER);
  if (o.held.includes(o.label)) return call('run_script', { name: own, inputs });
  if (faults.hand.has(t) && family) return submit(family.solve(inputs).toString());
  if (o.remaining > 0 && decide() === 'commit' && family) {
    return call('write_script', { name: own, code: faults.broken.has(t) ? BROKEN_SCRIPT : REFERENCE_SCRIPTS[family.name] });
  }
  return submit(DECLINED_ANSWER);
}

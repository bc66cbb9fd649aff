import type { ToolResult } from '../rungs/tool-results.js';
import type { LoopOutcome } from './agent-loop.js';
import type { LoopCall } from './read-loop-calls.js';

/** A sandbox run as the model is told about it (the activities record the full outcome). */
export type ScriptRunReport =
  | { readonly ok: true; readonly value: unknown; readonly logs: string }
  | { readonly ok: false; readonly kind: string; readonly error: string; readonly logs: string };

/** What a reply's tool results need beyond its calls and their outcomes. */
export interface ResultContext {
  readonly t: number;
  readonly horizon: number;
  /** Writes left when the reply came. */
  readonly writesLeft: number;
  /** The scripts when the reply came: sources by name, in write order. */
  readonly code: ReadonlyMap<string, string>;
  readonly tokensRemaining: number | null;
}

/** Saves a written script's source; a rewrite moves its name to the end of the list, as list_scripts shows it. */
export function saveWrite(code: Map<string, string>, name: string, source: string): void {
  code.delete(name);
  code.set(name, source);
}

const MAX_SHOWN = 2000;
const clip = (text: string) =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text;

function runResult(run: ScriptRunReport | undefined): Record<string, unknown> {
  if (!run) return { ok: false, error: 'The script did not run.' };
  const logs = run.logs ? { printed: clip(run.logs) } : {};
  return run.ok ? { ok: true, returned: run.value, ...logs } : { ok: false, error: `${run.kind}: ${clip(run.error)}`, ...logs };
}

/** One call's result; `context` as the call finds it, its reply's earlier writes included. */
function content(call: LoopCall, outcome: LoopOutcome, context: ResultContext, run: ScriptRunReport | undefined): Record<string, unknown> {
  switch (outcome.kind) {
    case 'written':
      return {
        ok: true,
        message: `Saved script '${outcome.name}', tied to the type of this problem. It has not been run.`,
        writes_remaining: context.writesLeft,
      };
    case 'write-refused':
      return { ok: false, error: 'You have no writes left, so nothing was saved.', writes_remaining: 0 };
    case 'run':
      return runResult(run);
    case 'run-refused':
      return { ok: false, error: `Script '${outcome.name}' is tied to a different type of problem, so it was not run.` };
    case 'run-missing':
    case 'read-missing':
      return { ok: false, error: `You have no script named '${outcome.name}'.`, scripts: [...context.code.keys()] };
    case 'listed':
      return { ok: true, scripts: [...context.code.keys()], writes_remaining: context.writesLeft };
    case 'read':
      return { ok: true, name: outcome.name, code: context.code.get(outcome.name) ?? '' };
    case 'submitted':
      return { ok: true, message: `Answer to problem ${context.t} recorded.`, problems_remaining: context.horizon - context.t };
    case 'invalid':
    case 'unknown-tool':
      return { ok: false, error: 'detail' in call ? call.detail : 'invalid call' };
    case 'skipped':
      return {
        ok: false,
        error:
          outcome.after === 'submitted'
            ? 'Not carried out: an earlier call in this reply already submitted the answer.'
            : 'Not carried out: the session has ended.',
      };
  }
}

/**
 * The result of each tool call of one reply, as JSON text; every one carries
 * tokens_remaining. The calls take effect in order: a list_scripts or
 * read_script after a write in the same reply shows it, one before does not.
 */
export function loopToolResults(
  callIds: readonly string[],
  calls: readonly LoopCall[],
  outcomes: readonly LoopOutcome[],
  context: ResultContext,
  runs: ReadonlyMap<number, ScriptRunReport>,
): ToolResult[] {
  let writesLeft = context.writesLeft;
  const code = new Map(context.code);
  return callIds.map((toolCallId, index) => {
    const call = calls[index] as LoopCall;
    const outcome = outcomes[index] as LoopOutcome;
    if (outcome.kind === 'written' && call.tool === 'write_script') {
      writesLeft--;
      saveWrite(code, call.name, call.code);
    }
    const atCall = { ...context, writesLeft, code };
    return {
      toolCallId,
      content: JSON.stringify({ ...content(call, outcome, atCall, runs.get(index)), tokens_remaining: context.tokensRemaining }),
    };
  });
}

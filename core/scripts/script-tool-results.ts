import type { ModelReply } from '../chat/messages.js';
import type { ToolResult } from '../rungs/tool-results.js';
import type { ScriptAction } from './script-ledger.js';

/** A sandbox run as the model is told about it (the activities record the full outcome). */
export type ScriptRunReport =
  | { readonly ok: true; readonly value: unknown; readonly logs: string }
  | { readonly ok: false; readonly kind: string; readonly error: string; readonly logs: string };

const MAX_SHOWN = 2000;

const clip = (text: string) =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text;

function described(run: ScriptRunReport): string {
  const printed = run.logs ? ` It printed:\n${clip(run.logs)}` : '';
  return run.ok
    ? `returned ${clip(JSON.stringify(run.value) ?? 'undefined')}.${printed}`
    : `failed (${run.kind}): ${clip(run.error)}${printed}`;
}

/**
 * What each tool call of an R3 reply is answered with. The correctness of a
 * script's output or of an answer is not revealed: the gold answer stays hidden.
 */
export function scriptToolResults(reply: ModelReply, action: ScriptAction, writesLeftAfter: number, run?: ScriptRunReport): ToolResult[] {
  let content: string;
  switch (action.kind) {
    case 'write':
      content = `Script ${action.scriptId} saved (writes left: ${writesLeftAfter}). Tested on this problem, it ${run ? described(run) : 'was not run.'}`;
      break;
    case 'write-refused':
      content = 'Refused: you have no writes left. Nothing was saved.';
      break;
    case 'run':
      content = `Script ${action.scriptId} ${run ? described(run) : 'was not run.'}`;
      break;
    case 'run-refused':
      content = `Refused: script ${action.scriptId} was written for a different type of problem. It was not run.`;
      break;
    case 'answer':
      content = 'Answer recorded.';
      break;
    case 'unresolved':
      content = `Not accepted (${action.detail}). No valid action was recorded, so this problem scores zero.`;
      break;
  }
  return reply.toolCalls.map((call) => ({ toolCallId: call.id, content }));
}

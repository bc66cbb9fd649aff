import type { Exchange } from '../core/chat/conversation.js';
import { loopToolResults, saveWrite, type ScriptRunReport } from '../core/scripts/loop-tool-results.js';
import type { LoopCall } from '../core/scripts/read-loop-calls.js';
import { callsOfStep, runKey, type LoopStepRecord, type Transcript } from '../run-store/transcript.js';

/** Exchanges already rendered, by step record: a step's exchange never changes once its runs are on record. */
const rendered = new WeakMap<LoopStepRecord, Exchange>();

/**
 * R3's model calls as the conversation remembers them: each reply with the
 * results of its tool calls. A call renders only the steps not rendered by an
 * earlier call of this process, so the conversation grows by appending.
 */
export function loopExchanges(transcript: Transcript, horizon: number): Exchange[] {
  /** The scripts before the step at hand: sources by name, in write order. */
  const code = new Map<string, string>();
  return transcript.steps.map((step) => {
    const calls = callsOfStep(step);
    const exchange = rendered.get(step) ?? render(transcript, step, calls, code, horizon);
    step.outcomes.forEach((outcome, index) => {
      const call = calls[index];
      if (outcome.kind === 'written' && call?.tool === 'write_script') saveWrite(code, call.name, call.code);
    });
    return exchange;
  });
}

function render(
  transcript: Transcript,
  step: LoopStepRecord,
  calls: readonly LoopCall[],
  code: ReadonlyMap<string, string>,
  horizon: number,
): Exchange {
  const runs = new Map<number, ScriptRunReport>();
  step.outcomes.forEach((_, index) => {
    const execution = transcript.executions.get(runKey(step.call, index));
    if (execution) runs.set(index, execution.outcome);
  });
  const writes = step.outcomes.filter((outcome) => outcome.kind === 'written').length;
  const context = { t: step.t, horizon, writesLeft: step.writesLeft + writes, code, tokensRemaining: step.tokensRemaining };
  const toolResults = loopToolResults(
    step.reply.toolCalls.map((call) => call.id),
    calls,
    step.outcomes,
    context,
    runs,
  );
  const exchange = { ...(step.user !== undefined && { user: step.user }), reply: step.reply, toolResults };
  const complete = step.outcomes.every((outcome, index) => outcome.kind !== 'run' || runs.has(index));
  if (complete) rendered.set(step, exchange);
  return exchange;
}

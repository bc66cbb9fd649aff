import { ApplicationFailure } from '@temporalio/activity';
import { conversation } from '../core/chat/conversation.js';
import { MAX_OUTPUT_TOKENS } from '../core/rungs/rung.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { applyReply, type LoopState, type LoopStep } from '../core/scripts/agent-loop.js';
import { matchesGold } from '../core/scripts/answer-match.js';
import { LOOP_FORMAT_REMINDER, problemMessage } from '../core/scripts/loop-messages.js';
import { loopObservation } from '../core/scripts/loop-observation.js';
import { loopToolSpecs } from '../core/scripts/loop-tools.js';
import { headOf, readLoopCalls } from '../core/scripts/read-loop-calls.js';
import { framingOf, sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { callProvider, replyOnRecord } from './provider-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { loopExchanges } from './loop-conversation.js';
import { runLayout } from './run-store/run-layout.js';
import { appendRecord, countedTokens, readTranscript, type Termination } from './run-store/transcript.js';
import { reachedCap } from './session-caps.js';
import { loadSessionContext } from './session-context.js';

export interface LoopCallInput {
  readonly runDir: string;
  readonly spec: SessionSpec;
  /** The loop before this call; the call's index is state.calls + 1. */
  readonly state: LoopState;
}

/** Compact on purpose: the reply, its code and inputs stay in the run store. */
export type LoopCallResult =
  | { readonly kind: 'step'; readonly step: LoopStep }
  | { readonly kind: 'stopped'; readonly reason: Termination };

export const loopRules = (classes: readonly number[], spec: SessionSpec) => ({ classes, budget: spec.budget, end: spec.script.end });

/**
 * One model call of an R3 session: stop if a cap is reached, render the
 * conversation from the run store, call the model under the rerun rules,
 * apply the loop's rules to its tool calls (core/scripts/agent-loop.ts),
 * record the step and return it. A call already on record is returned as
 * recorded; a reply on record whose step is not (the worker died in between)
 * is used, not paid again: attempts are keyed by the call index.
 */
export function createLoopCallActivity(providers: ProviderRegistry) {
  return async function askModel({ runDir, spec, state }: LoopCallInput): Promise<LoopCallResult> {
    const call = state.calls + 1;
    const path = runLayout.transcript(runDir, spec);
    const transcript = await readTranscript(path);
    const { stream, classes, setting } = await loadSessionContext(runDir, spec);
    const rules = loopRules(classes, spec);
    const recorded = transcript.steps.find((step) => step.call === call);
    if (recorded) return { kind: 'step', step: applyReply(state, rules, readLoopCalls(recorded.reply).map(headOf)) };
    if (transcript.steps.length !== state.calls)
      throw ApplicationFailure.nonRetryable(
        `call ${call} is not the next R3 call (${transcript.steps.length} on record)`,
        'SessionOutOfStep',
      );

    const previous = transcript.attemptsSinceResume(call);
    // A reply already paid for stands, even if it took the session past a cap (as it would have, had its worker lived).
    const cap = replyOnRecord(previous) ? undefined : await reachedCap(runDir, spec, transcript);
    if (cap) return { kind: 'stopped', reason: cap };

    const item = stream.items[state.t - 1] as (typeof stream.items)[number];
    const user =
      state.prompt === 'problem'
        ? problemMessage(state.t, classes.length, item)
        : state.prompt === 'reminder'
          ? LOOP_FORMAT_REMINDER
          : undefined;
    const key = sessionKey(spec);
    const outcome = await callProvider(
      providers.get(spec.model),
      {
        system: systemPrompt(framingOf(spec)),
        messages: conversation(loopExchanges(transcript, classes.length), user),
        tools: loopToolSpecs(),
        toolChoice: 'auto',
        temperature: spec.temperature,
        maxOutputTokens: MAX_OUTPUT_TOKENS.R3,
        conversationKey: key,
        observation: loopObservation(classes, state, setting),
        inputs: item.inputs,
      },
      { runDir, spec, sessionKey: key, transcriptPath: path, t: call, previous },
      () => ({ resolved: true as const }),
    );
    if (outcome.kind === 'stopped') return outcome;
    const { response, reused } = outcome;
    const calls = readLoopCalls(response);
    const step = applyReply(state, rules, calls.map(headOf));
    const submission = calls.find((_, index) => step.outcomes[index]?.kind === 'submitted');
    const used = transcript.tokensUsed + (reused ? 0 : countedTokens(response.usage));
    const occurrence = classes.slice(0, state.t).filter((classId) => classId === classes[state.t - 1]).length;
    await appendRecord(path, {
      type: 'loop-step',
      at: new Date().toISOString(),
      call,
      t: state.t,
      classId: classes[state.t - 1] as number,
      occurrence,
      ...(user !== undefined && { user }),
      reply: { text: response.text, toolCalls: response.toolCalls },
      outcomes: step.outcomes,
      advanced: step.advanced,
      ...(submission?.tool === 'submit_answer' && {
        submitted: { value: submission.value, correct: matchesGold(submission.value, item.answer) },
      }),
      tokensRemaining: spec.tokenCap === null ? null : Math.max(0, spec.tokenCap - used),
      writesLeft: spec.budget - step.state.writes,
      usage: response.usage,
      responseModel: response.responseModel,
      ...(reused && { reused }),
    });
    return { kind: 'step', step };
  };
}

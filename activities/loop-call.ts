import { conversation } from '../core/chat/conversation.js';
import { replyOf } from '../core/chat/messages.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { matchesGold } from '../core/scripts/answer-match.js';
import { loopToolSpecs } from '../core/scripts/loop-tools.js';
import { headOf, readLoopCalls } from '../core/scripts/read-loop-calls.js';
import { afterLoopReply, observationAt, openingMessage } from '../core/session/turn-protocol.js';
import { agentModel, conversationKey, framingOf, maxOutputTokens, sessionKey } from '../core/sweep/session-spec.js';
import type { StepResult } from '../protocol/activities.js';
import { callProvider } from './provider-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { loopExchanges } from './loop-conversation.js';
import { callsOfStep, countedTokens } from '../run-store/transcript.js';
import { reachedCap } from './session-caps.js';
import { outOfStep, type CallSession } from './session-context.js';

/** The step's result for the workflow: the progress after it and the positions of the runs to make. */
function stepResult(step: ReturnType<typeof afterLoopReply>): StepResult {
  const runs = step.outcomes.flatMap((outcome, index) => (outcome.kind === 'run' ? [index] : []));
  return { kind: 'step', progress: step.progress, runs };
}

/**
 * One model call of an R3 session (or of a split agent's builder): stop if a cap is reached, call the model
 * on the conversation rebuilt from the run store under the rerun rules, apply
 * the loop's rules to its tool calls (core/scripts/agent-loop.ts) and record
 * the step. A call already on record is returned as recorded; a reply on
 * record whose step is not (the worker died in between) is used, not paid
 * again: attempts are keyed by the call index.
 */
export async function loopCall(providers: ProviderRegistry, session: CallSession): Promise<StepResult> {
  const { store, spec, transcript, move, rules, classes, progress } = session;
  if (move.kind !== 'loop-call') throw outOfStep('a decision turn at R3');
  const { call, state, role } = move;
  const recorded = transcript.steps.find((step) => step.call === call);
  if (recorded) return stepResult(afterLoopReply(progress, move, callsOfStep(recorded).map(headOf)));
  if (transcript.steps.length !== state.calls)
    throw outOfStep(`call ${call} is not the next R3 call (${transcript.steps.length} on record)`);

  const previous = transcript.attemptsSinceResume(call, role);
  const cap = await reachedCap(store, spec, session.caps, transcript, previous);
  if (cap) return { kind: 'stopped', reason: cap };

  const item = session.stream.items[state.t - 1] as (typeof session.stream.items)[number];
  const framing = framingOf(spec, role);
  const user = openingMessage(framing, move, session.stream.items);
  const key = sessionKey(spec);
  const called = agentModel(spec, role);
  const outcome = await callProvider(
    providers.get(
      called.model,
      { observation: observationAt(move, rules), inputs: item.inputs, ...(role && { role }) },
      store,
      session.replay,
    ),
    {
      system: systemPrompt(framing),
      messages: conversation(loopExchanges(transcript, classes.length), user),
      tools: loopToolSpecs(),
      toolChoice: 'auto',
      temperature: called.temperature,
      maxOutputTokens: maxOutputTokens(spec, role),
      conversationKey: conversationKey(key, role),
    },
    { store, session: session.session, spec, sessionKey: key, t: call, rung: 'R3', price: called.price, ...(role && { role }), previous },
    () => ({ resolved: true as const }),
  );
  if (outcome.kind === 'stopped') return outcome;
  const { response, reused } = outcome;
  const calls = readLoopCalls(response);
  const step = afterLoopReply(progress, move, calls.map(headOf));
  const submission = calls.find((_, index) => step.outcomes[index]?.kind === 'submitted');
  const used = transcript.tokensUsed + (reused ? 0 : countedTokens(response.usage));
  const occurrence = classes.slice(0, state.t).filter((classId) => classId === classes[state.t - 1]).length;
  await store.appendTranscript(session.session, {
    type: 'loop-step',
    at: new Date().toISOString(),
    call,
    t: state.t,
    classId: classes[state.t - 1] as number,
    occurrence,
    ...(user !== undefined && { user }),
    reply: replyOf(response),
    outcomes: step.outcomes,
    advanced: step.advanced,
    ...(submission?.tool === 'submit_answer' && {
      submitted: { value: submission.value, correct: matchesGold(submission.value, item.answer) },
    }),
    tokensRemaining: spec.tokenCap === null ? null : Math.max(0, spec.tokenCap - used),
    writesLeft: move.loopRules.budget - step.state.writes,
    usage: response.usage,
    responseModel: response.responseModel,
    ...(reused && { reused }),
  });
  return stepResult(step);
}

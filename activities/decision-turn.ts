import { conversation } from '../core/chat/conversation.js';
import { replyOf } from '../core/chat/messages.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import { decisionRecord } from '../core/rungs/reply-outcome.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { toolResults } from '../core/rungs/tool-results.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { afterDecision, decisionsMade, observationAt, openingMessage } from '../core/session/turn-protocol.js';
import { agentModel, callRung, conversationKey, framingOf, isLocalModel, maxOutputTokens, sessionKey } from '../core/sweep/session-spec.js';
import type { StepResult } from '../protocol/activities.js';
import { callProvider } from './provider-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { TurnRecord } from '../run-store/transcript.js';
import { reachedCap } from './session-caps.js';
import { outOfStep, type CallSession } from './session-context.js';

const exchange = (turn: TurnRecord) => ({ user: turn.user, reply: turn.reply, toolResults: turn.toolResults });

/**
 * One decision turn (R0–R2, the probe, and a split agent's planner, asked as
 * at R1): stop if a cap is reached, call the model on the conversation
 * rebuilt from the run store (claim check: it never passes through Temporal)
 * under the rerun rules, read the reply into the rung's decision and record
 * the turn. A turn already on record is returned as recorded.
 */
export async function decisionTurn(providers: ProviderRegistry, session: CallSession): Promise<StepResult> {
  const { store, spec, transcript, move, progress } = session;
  const { role } = move;
  const rung = callRung(spec, role);
  if (move.kind !== 'decide' || rung === 'R3') throw outOfStep('a decision turn asked of an R3 session');
  const t = move.call;
  const recorded = transcript.turns.find((turn) => turn.t === t);
  if (recorded) return { kind: 'step', progress: afterDecision(progress, recorded.decision.action), runs: [] };
  if (transcript.turns.length !== decisionsMade(progress))
    throw outOfStep(`turn ${t} is not the next decision turn (${transcript.turns.length} turns on record)`);

  const previous = transcript.attemptsSinceResume(t, role);
  const cap = await reachedCap(store, spec, session.caps, transcript, previous);
  if (cap) return { kind: 'stopped', reason: cap };

  const framing = framingOf(spec, role);
  const user = openingMessage(framing, move, session.stream.items) as string;
  const key = sessionKey(spec);
  const called = agentModel(spec, role);
  const outcome = await callProvider(
    providers.get(called.model, { observation: observationAt(move, session.rules), ...(role && { role }) }, store, session.replay),
    {
      system: systemPrompt(framing),
      messages: conversation(transcript.turns.map(exchange), user),
      tools: toolSpecs(framing),
      // The paper's local models were made to call a tool at the tool rungs.
      toolChoice: isLocalModel(called.model) && rung !== 'R0' ? 'required' : 'auto',
      temperature: called.temperature,
      maxOutputTokens: maxOutputTokens(spec, role),
      conversationKey: conversationKey(key, role),
    },
    { store, session: session.session, spec, sessionKey: key, t, rung, price: called.price, ...(role && { role }), previous },
    (reply) => parseReply(rung, reply, { strict: spec.strictParse }),
  );
  if (outcome.kind === 'stopped') return outcome;
  const { response, parsed, reused } = outcome;
  const decision = decisionRecord({ t, classId: move.point.classId, occurrence: move.point.observation.occurrence }, parsed);
  await store.appendTranscript(session.session, {
    type: 'turn',
    at: new Date().toISOString(),
    t,
    user,
    reply: replyOf(response),
    toolResults: rung === 'R0' ? [] : toolResults(rung, response, parsed),
    decision,
    ...(parsed.detail && { detail: parsed.detail }),
    usage: response.usage,
    responseModel: response.responseModel,
    ...(reused && { reused }),
  });
  return { kind: 'step', progress: afterDecision(progress, decision.action), runs: [] };
}

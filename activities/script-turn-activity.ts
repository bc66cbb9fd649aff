import { ApplicationFailure } from '@temporalio/activity';
import { conversation } from '../core/chat/conversation.js';
import { MAX_OUTPUT_TOKENS } from '../core/rungs/rung.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { matchesGold } from '../core/scripts/answer-match.js';
import { parseScriptCall } from '../core/scripts/parse-script-call.js';
import { resolveScriptCall, type ScriptActionKind } from '../core/scripts/script-ledger.js';
import { scriptToolSpecs } from '../core/scripts/script-tools.js';
import { scriptTurnMessage } from '../core/scripts/script-turn-message.js';
import { nextScriptPoint } from '../core/scripts/script-walk.js';
import { framingOf, sessionKey } from '../core/sweep/session-spec.js';
import type { TurnInput } from './model-activities.js';
import { callProvider, replyOnRecord } from './provider-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { runLayout } from './run-store/run-layout.js';
import { appendRecord, readTranscript, type Termination } from './run-store/transcript.js';
import { scriptExchanges } from './script-conversation.js';
import { reachedCap } from './session-caps.js';
import { loadSessionContext } from './session-context.js';

/** Compact on purpose: the reply, the code and the attempts stay in the run store. */
export type ScriptTurnResult =
  | { readonly kind: 'played'; readonly action: ScriptActionKind }
  | { readonly kind: 'stopped'; readonly reason: Termination };

/**
 * One R3 turn (every item is one): render the prompt from the run store, stop
 * if a cap is reached, call the model under the rerun rules, resolve its call
 * against the script ledger (binding a write to the item's hidden class,
 * refusing a cross-class run), check a raw answer, record the turn and return
 * only what it did. A turn already on record is returned as recorded; a reply
 * on record whose turn is not (the worker died in between) is used, not paid again.
 */
export function createScriptTurnActivity(providers: ProviderRegistry) {
  return async function takeScriptTurn({ runDir, spec, t }: TurnInput): Promise<ScriptTurnResult> {
    const path = runLayout.transcript(runDir, spec);
    const transcript = await readTranscript(path);
    const recorded = transcript.scriptTurns.find((turn) => turn.t === t);
    if (recorded) return { kind: 'played', action: recorded.action.kind };

    const { stream, classes, setting } = await loadSessionContext(runDir, spec);
    const point = nextScriptPoint(
      classes,
      setting,
      transcript.scriptTurns.map((turn) => turn.action.kind),
    );
    if (point?.t !== t)
      throw ApplicationFailure.nonRetryable(`turn ${t} is not the next R3 turn (${point?.t ?? 'none left'})`, 'SessionOutOfStep');
    const previous = transcript.attemptsSinceResume(t);
    // A reply already paid for stands, even if it took the session past a cap (as it would have, had its worker lived).
    const cap = replyOnRecord(previous) ? undefined : await reachedCap(runDir, spec, transcript);
    if (cap) return { kind: 'stopped', reason: cap };

    const item = stream.items[t - 1] as (typeof stream.items)[number];
    const user = scriptTurnMessage(point, item);
    const key = sessionKey(spec);
    const outcome = await callProvider(
      providers.get(spec.model),
      {
        system: systemPrompt(framingOf(spec)),
        messages: conversation(scriptExchanges(transcript, spec.budget), user),
        tools: scriptToolSpecs(),
        toolChoice: 'auto',
        temperature: spec.temperature,
        maxOutputTokens: MAX_OUTPUT_TOKENS.R3,
        conversationKey: key,
        observation: point.observation,
        scripts: point.scripts,
        inputs: item.inputs,
      },
      { runDir, spec, sessionKey: key, transcriptPath: path, t, previous },
      parseScriptCall,
    );
    if (outcome.kind === 'stopped') return outcome;
    const { response, parsed, reused } = outcome;
    const action = resolveScriptCall(point.ledger, point.classId, parsed);
    await appendRecord(path, {
      type: 'script-turn',
      at: new Date().toISOString(),
      t,
      classId: point.classId,
      occurrence: point.observation.occurrence,
      user,
      reply: { text: response.text, toolCalls: response.toolCalls },
      action,
      ...(action.kind === 'answer' && { answerCorrect: matchesGold(action.answer, item.answer) }),
      usage: response.usage,
      responseModel: response.responseModel,
      ...(reused && { reused }),
    });
    return { kind: 'played', action: action.kind };
  };
}

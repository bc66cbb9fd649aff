import { ApplicationFailure } from '@temporalio/activity';
import { conversation } from '../core/chat/conversation.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import { toolResults } from '../core/rungs/tool-results.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { turnMessage } from '../core/rungs/turn-message.js';
import { nextDecisionPoint } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Action } from '../core/session/session-state.js';
import { framingOf, isLocalModel, maxOutputTokens, sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { callProvider, replyOnRecord } from './provider-call.js';
import type { ProviderRegistry } from './providers/registry.js';
import { runLayout } from './run-store/run-layout.js';
import { appendRecord, readTranscript, type Termination, type TurnRecord } from './run-store/transcript.js';
import { createLoopCallActivity } from './loop-call-activity.js';
import { reachedCap } from './session-caps.js';
import { loadSessionContext } from './session-context.js';

export interface TurnInput {
  readonly runDir: string;
  readonly spec: SessionSpec;
  /** The decision turn, which must be the session's next one. */
  readonly t: number;
}

/** Compact on purpose: the reply, the prompt and the attempts stay in the run store. */
export type TurnResult = { readonly kind: 'decided'; readonly action: Action } | { readonly kind: 'stopped'; readonly reason: Termination };

const exchange = (turn: TurnRecord) => ({ user: turn.user, reply: turn.reply, toolResults: turn.toolResults });

export function createModelActivities(providers: ProviderRegistry) {
  return {
    /**
     * One decision turn: render the prompt from the run store (claim check: the
     * conversation never passes through Temporal), stop if a cap is reached,
     * call the model under the rerun rules, record the turn, and return only
     * the decision. A turn already on record is returned as recorded, and a reply
     * on record whose turn is not (the worker died in between) is used as it is,
     * so retries and resumed sessions never pay twice.
     */
    async takeTurn({ runDir, spec, t }: TurnInput): Promise<TurnResult> {
      const rung = spec.rung;
      if (rung === 'R3') throw ApplicationFailure.nonRetryable('R3 sessions run the agent loop', 'SessionOutOfStep');
      const path = runLayout.transcript(runDir, spec);
      const transcript = await readTranscript(path);
      const recorded = transcript.turns.find((turn) => turn.t === t);
      if (recorded) return { kind: 'decided', action: recorded.decision.action };

      const { stream, classes, setting } = await loadSessionContext(runDir, spec);
      const point = nextDecisionPoint(
        classes,
        setting,
        transcript.turns.map((turn) => turn.decision),
      );
      if (point?.t !== t) {
        throw ApplicationFailure.nonRetryable(`turn ${t} is not the next decision turn (${point?.t ?? 'none left'})`, 'SessionOutOfStep');
      }
      const previous = transcript.attemptsSinceResume(t);
      // A reply already paid for stands, even if it took the session past a cap (as it would have, had its worker lived).
      const cap = replyOnRecord(previous) ? undefined : await reachedCap(runDir, spec, transcript);
      if (cap) return { kind: 'stopped', reason: cap };

      const framing = framingOf(spec);
      const user = turnMessage(framing, point, stream.items[t - 1] as (typeof stream.items)[number]);
      const key = sessionKey(spec);
      const outcome = await callProvider(
        providers.get(spec.model),
        {
          system: systemPrompt(framing),
          messages: conversation(transcript.turns.map(exchange), user),
          tools: toolSpecs(framingOf(spec)),
          // The paper's local models were made to call a tool at the tool rungs.
          toolChoice: isLocalModel(spec.model) && rung !== 'R0' ? 'required' : 'auto',
          temperature: spec.temperature,
          maxOutputTokens: maxOutputTokens(spec),
          conversationKey: key,
          observation: point.observation,
        },
        { runDir, spec, sessionKey: key, transcriptPath: path, t, previous },
        (reply) => parseReply(rung, reply, { strict: spec.strictParse }),
      );
      if (outcome.kind === 'stopped') return outcome;
      const { response, parsed, reused } = outcome;
      const decision: DecisionRecord = {
        t,
        classId: point.classId,
        occurrence: point.observation.occurrence,
        action: parsed.action,
        resolved: parsed.resolved,
        ...(parsed.resolved && { how: parsed.how }),
        ...(parsed.failure && { failure: parsed.failure }),
      };
      await appendRecord(path, {
        type: 'turn',
        at: new Date().toISOString(),
        t,
        user,
        reply: { text: response.text, toolCalls: response.toolCalls },
        toolResults: rung === 'R0' ? [] : toolResults(rung, response, parsed),
        decision,
        ...(parsed.detail && { detail: parsed.detail }),
        usage: response.usage,
        responseModel: response.responseModel,
        ...(reused && { reused }),
      });
      return { kind: 'decided', action: decision.action };
    },

    askModel: createLoopCallActivity(providers),
  };
}

export type ModelActivities = ReturnType<typeof createModelActivities>;

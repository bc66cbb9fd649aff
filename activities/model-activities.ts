import { ApplicationFailure, Context } from '@temporalio/activity';
import { conversation } from '../core/chat/conversation.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import { MAX_OUTPUT_TOKENS } from '../core/rungs/rung.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { toolResults } from '../core/rungs/tool-results.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { turnMessage } from '../core/rungs/turn-message.js';
import { nextDecisionPoint } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Action } from '../core/session/session-state.js';
import { framingOf, type SessionSpec } from '../core/sweep/session-spec.js';
import type { GenerateResponse } from './providers/provider.js';
import type { ProviderRegistry } from './providers/registry.js';
import { runLayout } from './run-store/run-layout.js';
import { appendRecord, readTranscript, type Termination, type TurnRecord } from './run-store/transcript.js';
import { loadSessionContext } from './session-context.js';

/** Paper B.6: a transport or provider exception gets at most two more attempts, 1.5 s then 3 s later. */
export const MAX_PROVIDER_ATTEMPTS = 3;
export const BACKOFF_STEP_SECONDS = 1.5;

export interface TurnInput {
  readonly runDir: string;
  readonly spec: SessionSpec;
  /** The decision turn, which must be the session's next one. */
  readonly t: number;
}

/** Compact on purpose: the reply, the prompt and the attempts stay in the run store. */
export type TurnResult =
  | { readonly kind: 'decided'; readonly action: Action }
  | { readonly kind: 'stopped'; readonly reason: Termination };

const exchange = (turn: TurnRecord) => ({ user: turn.user, reply: turn.reply, toolResults: turn.toolResults });

/** Heartbeats while `work` runs, so a dead worker's turn is retried elsewhere soon. */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const every = Math.max(1000, (context.info.heartbeatTimeoutMs ?? 30_000) / 3);
  const timer = setInterval(() => context.heartbeat(), every);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function createModelActivities(providers: ProviderRegistry) {
  return {
    /**
     * One decision turn: render the prompt from the run store (claim check: the
     * conversation never passes through Temporal), call the model, record every
     * attempt and the turn, and return only the decision. A turn already on
     * record is returned as recorded, so retries and resumed sessions never pay twice.
     */
    async takeTurn({ runDir, spec, t }: TurnInput): Promise<TurnResult> {
      const path = runLayout.transcript(runDir, spec);
      const transcript = await readTranscript(path);
      const recorded = transcript.turns.find((turn) => turn.t === t);
      if (recorded) return { kind: 'decided', action: recorded.decision.action };

      const { stream, classes, setting } = await loadSessionContext(runDir, spec);
      const point = nextDecisionPoint(classes, setting, transcript.turns.map((turn) => turn.decision));
      if (point?.t !== t) {
        throw ApplicationFailure.nonRetryable(`turn ${t} is not the next decision turn (${point?.t ?? 'none left'})`, 'SessionOutOfStep');
      }
      if (transcript.tokensUsed >= spec.tokenCap) return { kind: 'stopped', reason: 'token-cap' };
      if (spec.costCap !== null && transcript.costUsd >= spec.costCap) return { kind: 'stopped', reason: 'cost-cap' };

      const framing = framingOf(spec);
      const user = turnMessage(framing, point, stream.items[t - 1] as (typeof stream.items)[number]);
      const attempt = transcript.attemptsSinceResume(t).length + 1;
      const provider = providers.get(spec.model);
      const context = Context.current();
      const started = Date.now();
      const base = { type: 'attempt' as const, t, attempt, activityAttempt: context.info.attempt };
      let response: GenerateResponse;
      try {
        response = await withHeartbeat(() =>
          provider.generate({
            system: systemPrompt(framing),
            messages: conversation(transcript.turns.map(exchange), user),
            tools: toolSpecs(spec.rung),
            toolChoice: 'auto',
            maxOutputTokens: MAX_OUTPUT_TOKENS[spec.rung],
            attempt,
            observation: point.observation,
            signal: context.cancellationSignal,
          }),
        );
      } catch (error) {
        const errorClass = provider.classify(error);
        const message = error instanceof Error ? error.message : String(error);
        await appendRecord(path, {
          ...base,
          at: new Date().toISOString(),
          latencyMs: Date.now() - started,
          outcome: `${errorClass}-error`,
          error: message,
          usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
          usageEstimated: false,
        });
        if (errorClass === 'permanent') return { kind: 'stopped', reason: 'provider-error' };
        if (attempt >= MAX_PROVIDER_ATTEMPTS) return { kind: 'stopped', reason: 'transport-exhausted' };
        throw ApplicationFailure.create({
          type: 'TransportError',
          message: `turn ${t}, attempt ${attempt}: ${message}`,
          nextRetryDelay: `${BACKOFF_STEP_SECONDS * attempt}s`,
        });
      }
      const at = new Date().toISOString();
      await appendRecord(path, {
        ...base,
        at,
        latencyMs: Date.now() - started,
        outcome: 'ok',
        usage: response.usage,
        usageEstimated: response.usageEstimated,
        ...(response.costUsd !== undefined && { costUsd: response.costUsd }),
        responseModel: response.responseModel,
      });
      const parsed = parseReply(spec.rung, response);
      const decision: DecisionRecord = {
        t,
        classId: point.classId,
        occurrence: point.observation.occurrence,
        action: parsed.action,
        resolved: parsed.resolved,
        ...(!parsed.resolved && { failure: parsed.failure }),
      };
      await appendRecord(path, {
        type: 'turn',
        at,
        t,
        user,
        reply: { text: response.text, toolCalls: response.toolCalls },
        toolResults: toolResults(framing, point, response, parsed),
        decision,
        ...(!parsed.resolved && { detail: parsed.detail }),
        usage: response.usage,
        responseModel: response.responseModel,
      });
      return { kind: 'decided', action: decision.action };
    },
  };
}

export type ModelActivities = ReturnType<typeof createModelActivities>;

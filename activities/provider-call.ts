import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatMessage, ModelReply } from '../core/chat/messages.js';
import type { DecisionFailure } from '../core/session/session-record.js';
import { formatReminder } from '../core/rungs/format-reminder.js';
import type { Rung } from '../core/rungs/rung.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { withHeartbeat } from './heartbeat.js';
import { identityMatches } from './providers/model-identity.js';
import { costOf } from './providers/prices.js';
import { redactSecrets } from './providers/redact.js';
import type { GenerateRequest, GenerateResponse, Provider } from './providers/provider.js';
import { recordCost } from './run-store/cost-ledger.js';
import { appendRecord, type AttemptRecord, type Termination } from './run-store/transcript.js';

/** Paper B.6: a transport or provider exception gets at most two more attempts, 1.5 s then 3 s later. */
export const MAX_TRANSPORT_ATTEMPTS = 3;
export const BACKOFF_STEP_SECONDS = 1.5;

export interface CallContext {
  readonly runDir: string;
  readonly spec: SessionSpec;
  readonly sessionKey: string;
  readonly transcriptPath: string;
  readonly t: number;
  /** Attempts already recorded for this turn since the last replacement run. */
  readonly previous: readonly AttemptRecord[];
}

/** A reply parsed into the rung's decision, or into a model-level failure. */
export type Parsed = { readonly resolved: true } | { readonly resolved: false; readonly failure: DecisionFailure };

export type CallOutcome<P extends Parsed> =
  | { readonly kind: 'reply'; readonly response: GenerateResponse; readonly parsed: P }
  | { readonly kind: 'stopped'; readonly reason: Termination };

function seedFor(sessionKey: string, t: number, attempt: number): number {
  let hash = 2166136261;
  for (const char of `${sessionKey}#${t}#${attempt}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

/** The rungs whose decision is a tool call: the probe, R1 and R2 (R0 answers in text; R3 has its own tools). */
function isToolRung(rung: Rung): rung is 'probe' | 'R1' | 'R2' {
  return rung === 'probe' || rung === 'R1' || rung === 'R2';
}

/**
 * A reply that stopped at the output limit without giving a decision is
 * unresolved as 'cut-off' (HARNESS.md, limits), whatever the reader found
 * missing; a decision given before the limit stands.
 */
export function cutOff<P extends Parsed>(parsed: P, response: Pick<GenerateResponse, 'stopReason'>, maxOutputTokens: number): P {
  if (parsed.resolved || response.stopReason !== 'length') return parsed;
  const detail = 'detail' in parsed && typeof parsed.detail === 'string' ? `; ${parsed.detail}` : '';
  return { ...parsed, failure: 'cut-off', detail: `reply stopped at the ${maxOutputTokens}-token output limit${detail}` };
}

/**
 * Calls the provider for one decision turn under the rerun rules, recording
 * every attempt. A transport error is retried by Temporal after 1.5 s × its
 * number (or the provider's retry-after, if longer), at most three in all; a
 * permanent error stops the session.
 *
 * Empty-fence retries (paper F.5, HARNESS.md): at a tool rung, a local
 * model's reply with no tool call (after the provider's recovery of calls
 * left in the text) is dropped, and the same turn is asked again with a short
 * format reminder after the turn's message: the conversation plus one user
 * message, never the failed reply. `spec.emptyRetries` (the paper's efr N)
 * counts every call of the turn, the first included: at most N calls, then
 * the turn is unresolved. A reply cut off by the output limit is not asked
 * again; without a decision it is unresolved as 'cut-off'. Every attempt is
 * recorded, a dropped reply with it. Returns the reply that stands, parsed by
 * the rung's `parse`.
 */
export async function callProvider<P extends Parsed>(
  provider: Provider,
  request: Omit<GenerateRequest, 'attempt' | 'sampleSeed'>,
  call: CallContext,
  parse: (reply: ModelReply) => P,
): Promise<CallOutcome<P>> {
  const { spec, t } = call;
  const context = Context.current();
  let attempt = call.previous.length;
  let emptyReplies = call.previous.filter((a) => a.outcome === 'empty-reply').length;
  const transportErrors = call.previous.filter((a) => a.outcome === 'transport-error').length;
  const record = (fields: Omit<AttemptRecord, 'type' | 'at' | 't' | 'attempt' | 'activityAttempt'>) =>
    appendRecord(call.transcriptPath, {
      type: 'attempt',
      at: new Date().toISOString(),
      t,
      attempt,
      activityAttempt: context.info.attempt,
      ...fields,
    });
  const rung = spec.rung;
  const emptyFence = provider.local && isToolRung(rung);
  for (;;) {
    attempt++;
    const started = Date.now();
    // A re-ask after an empty reply: the turn's conversation, then the reminder (the empty reply is dropped).
    const reminder = emptyFence && emptyReplies > 0 ? formatReminder(rung) : undefined;
    const messages: readonly ChatMessage[] = reminder ? [...request.messages, { role: 'user', content: reminder }] : request.messages;
    let response: GenerateResponse;
    try {
      response = await withHeartbeat(() =>
        provider.generate({ ...request, messages, attempt, sampleSeed: seedFor(call.sessionKey, t, attempt) }),
      );
    } catch (error) {
      const { errorClass, retryAfterMs } = provider.classify(error);
      const message = redactSecrets(error instanceof Error ? error.message : String(error));
      await record({
        latencyMs: Date.now() - started,
        outcome: errorClass === 'permanent' ? 'permanent-error' : 'transport-error',
        error: message,
        ...(reminder && { reminder }),
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
        usageEstimated: false,
      });
      if (errorClass === 'permanent') return { kind: 'stopped', reason: 'provider-error' };
      const failures = transportErrors + 1;
      if (failures >= MAX_TRANSPORT_ATTEMPTS) return { kind: 'stopped', reason: 'transport-exhausted' };
      const delayMs = Math.max(BACKOFF_STEP_SECONDS * 1000 * failures, retryAfterMs ?? 0);
      throw ApplicationFailure.create({
        type: 'TransportError',
        message: `turn ${t}, attempt ${attempt}: ${message}`,
        nextRetryDelay: delayMs,
      });
    }
    const parsed = cutOff(parse(response), response, request.maxOutputTokens);
    const costUsd = response.costUsd ?? (spec.price ? costOf(response.usage, spec.price) : provider.local ? 0 : undefined);
    const askAgain =
      emptyFence &&
      !parsed.resolved &&
      response.toolCalls.length === 0 &&
      response.stopReason !== 'length' &&
      emptyReplies + 1 < spec.emptyRetries;
    await record({
      latencyMs: Date.now() - started,
      outcome: askAgain ? 'empty-reply' : 'ok',
      ...(response.stopReason !== null && { stopReason: response.stopReason }),
      ...(reminder && { reminder }),
      usage: response.usage,
      usageEstimated: response.usageEstimated,
      ...(costUsd !== undefined && { costUsd }),
      responseModel: response.responseModel,
      modelMatches: identityMatches(provider.apiModel, response.responseModel),
      ...(askAgain && { reply: { text: response.text, toolCalls: response.toolCalls } }),
    });
    if (costUsd) await recordCost(call.runDir, { at: new Date().toISOString(), session: call.sessionKey, t, costUsd });
    if (!askAgain) return { kind: 'reply', response, parsed };
    emptyReplies++;
  }
}

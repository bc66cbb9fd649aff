import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ModelReply } from '../core/chat/messages.js';
import type { DecisionFailure } from '../core/session/session-record.js';
import { isUrnRung } from '../core/rungs/rung.js';
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

/**
 * Calls the provider for one decision turn under the rerun rules, recording
 * every attempt. A transport error is retried by Temporal after 1.5 s × its
 * number (or the provider's retry-after, if longer), at most three in all; a
 * permanent error stops the session. A local model's reply without a tool
 * call is sampled again, up to the session's empty-fence retries, each
 * attempt kept. Returns the reply that stands, parsed by the rung's `parse`.
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
  for (;;) {
    attempt++;
    const started = Date.now();
    let response: GenerateResponse;
    try {
      response = await withHeartbeat(() => provider.generate({ ...request, attempt, sampleSeed: seedFor(call.sessionKey, t, attempt) }));
    } catch (error) {
      const { errorClass, retryAfterMs } = provider.classify(error);
      const message = redactSecrets(error instanceof Error ? error.message : String(error));
      await record({
        latencyMs: Date.now() - started,
        outcome: errorClass === 'permanent' ? 'permanent-error' : 'transport-error',
        error: message,
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
    const parsed = parse(response);
    const costUsd = response.costUsd ?? (spec.price ? costOf(response.usage, spec.price) : provider.local ? 0 : undefined);
    const resample =
      provider.local && !isUrnRung(spec.rung) && !parsed.resolved && parsed.failure === 'no-decision' && emptyReplies < spec.emptyRetries;
    await record({
      latencyMs: Date.now() - started,
      outcome: resample ? 'empty-reply' : 'ok',
      usage: response.usage,
      usageEstimated: response.usageEstimated,
      ...(costUsd !== undefined && { costUsd }),
      responseModel: response.responseModel,
      modelMatches: identityMatches(provider.apiModel, response.responseModel),
      ...(resample && { reply: { text: response.text, toolCalls: response.toolCalls } }),
    });
    if (costUsd) await recordCost(call.runDir, { at: new Date().toISOString(), session: call.sessionKey, t, costUsd });
    if (!resample) return { kind: 'reply', response, parsed };
    emptyReplies++;
  }
}

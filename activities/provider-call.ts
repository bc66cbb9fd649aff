import { ApplicationFailure, Context } from '@temporalio/activity';
import { replyOf, type ChatMessage, type ModelReply } from '../core/chat/messages.js';
import { cutOff, type Parsed } from '../core/rungs/reply-outcome.js';
import { formatReminder } from '../core/rungs/format-reminder.js';
import type { Rung, SplitRole } from '../core/rungs/rung.js';
import type { Price } from '../core/sweep/price.js';
import { conversationKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { withHeartbeat } from './heartbeat.js';
import { identityMatches } from './providers/model-identity.js';
import { costOf } from './providers/prices.js';
import { redactSecrets } from '../secrets/redact.js';
import type { ErrorClassification, GenerateRequest, GenerateResponse, Provider } from './providers/provider.js';
import { requestHash } from './providers/request-hash.js';
import type { RunStore } from '../run-store/run-store.js';
import type { Termination } from '../core/session/termination.js';
import type { AttemptRecord, ReusedReply } from '../run-store/transcript.js';

/** Paper B.6: a transport or provider exception gets at most two more attempts, 1.5 s then 3 s later. */
export const MAX_TRANSPORT_ATTEMPTS = 3;
/**
 * Under an adaptive limit, throttled replies of one turn retried outside the
 * three: the limit's probing draws one now and then, and it must not end the
 * session. Past these, a throttled reply counts as any transport error does.
 */
export const MAX_THROTTLED_RETRIES = 10;
export const BACKOFF_STEP_SECONDS = 1.5;
/** The longest retry-after honoured unless the sweep sets maxRetryAfterSeconds: a server may ask for hours. */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Test and chaos hook: `ALLOCBENCH_CRASH_AFTER_REPLY=<t>[,...]` kills this
 * worker process (SIGKILL, no cleanup) right after turn t's reply is recorded
 * and before anything else is, on the activity's first attempt: the window in
 * which a retry used to pay for the call again. `<role>:<t>` names a split
 * agent's planner turn or builder call.
 */
export const CRASH_AFTER_REPLY_VARIABLE = 'ALLOCBENCH_CRASH_AFTER_REPLY';

function crashAfterReplyIfAsked(t: number, role: SplitRole | undefined, activityAttempt: number): void {
  const turns = process.env[CRASH_AFTER_REPLY_VARIABLE];
  if (!turns || activityAttempt !== 1) return;
  if (turns.split(',').some((turn) => turn === String(t) || turn === `${role}:${t}`)) process.kill(process.pid, 'SIGKILL');
}

/**
 * The wait before the next attempt after the given number of transport
 * failures: the rerun rule's 1.5 s × failures, or the provider's retry-after
 * when longer, but never more than the cap.
 */
export function retryWait(failures: number, retryAfterMs: number | undefined, maxRetryAfterSeconds = DEFAULT_MAX_RETRY_AFTER_SECONDS) {
  const ruleMs = BACKOFF_STEP_SECONDS * 1000 * failures;
  const capMs = Math.max(0, maxRetryAfterSeconds) * 1000;
  const asked = retryAfterMs ?? 0;
  return { waitMs: Math.max(ruleMs, Math.min(asked, capMs)), capped: asked > capMs };
}

/** What follows a failed attempt: retried or not, after what wait, and whether as a throttled reply outside the three. */
export interface AfterFailure {
  readonly retried: boolean;
  readonly throttled: boolean;
  readonly waitMs: number;
  readonly capped: boolean;
}

/**
 * The rerun rules after a failed attempt, given the turn's attempts before
 * it: a permanent error is not retried; a transport error is, until the third;
 * a throttled reply under an adaptive limit (`adaptive`) is retried apart
 * from those, until MAX_THROTTLED_RETRIES, its wait stepping by its own count.
 * A replayed error is throttled where the recorded run counted it so.
 */
export function afterFailure(
  previous: readonly AttemptRecord[],
  failure: ErrorClassification,
  adaptive: boolean,
  maxRetryAfterSeconds?: number,
): AfterFailure {
  const transport = failure.errorClass === 'transport';
  const throttledBefore = previous.filter((a) => a.throttled).length;
  const counted = failure.replayedFrom !== undefined || adaptive;
  const throttled = transport && counted && failure.throttled !== undefined && throttledBefore < MAX_THROTTLED_RETRIES;
  const failures = throttled ? throttledBefore + 1 : previous.filter((a) => a.outcome === 'transport-error' && !a.throttled).length + 1;
  const wait = retryWait(failures, failure.retryAfterMs, maxRetryAfterSeconds);
  return { retried: transport && (throttled || failures < MAX_TRANSPORT_ATTEMPTS), throttled, ...wait };
}

/**
 * The turn's standing reply, if an earlier attempt of this activity recorded
 * one and died before recording the turn: the last attempt since the last
 * replacement run is a reply that became the turn's ('ok'), written whole
 * with its reply (a torn line is not read back). Records from before replies
 * were kept have none, and the turn is asked again.
 */
export function replyOnRecord(previous: readonly AttemptRecord[]): (AttemptRecord & { readonly reply: ModelReply }) | undefined {
  const last = previous.at(-1);
  return last?.outcome === 'ok' && last.reply && last.responseModel !== undefined
    ? (last as AttemptRecord & { reply: ModelReply })
    : undefined;
}

/** The provider's response as its attempt record keeps it. */
function recordedResponse(record: AttemptRecord & { readonly reply: ModelReply }): GenerateResponse {
  return {
    ...replyOf(record.reply),
    usage: record.usage,
    usageEstimated: record.usageEstimated,
    ...(record.costUsd !== undefined && { costUsd: record.costUsd }),
    responseModel: record.responseModel ?? '',
    stopReason: record.stopReason ?? null,
    ...(record.replayedFrom !== undefined && { replayedFrom: record.replayedFrom }),
  };
}

/** The run's cost ledger has the recorded attempt's line (keyed by session, turn and the attempt's time), or gets it now. */
async function ensureCostRecorded(call: CallContext, record: AttemptRecord): Promise<void> {
  if (!record.costUsd) return;
  const entry = { at: record.at, session: call.sessionKey, t: record.t, ...(call.role && { role: call.role }), costUsd: record.costUsd };
  if (!(await call.store.costRecorded(entry))) await call.store.recordCost(entry);
}

export interface CallContext {
  readonly store: RunStore;
  /** The session's folder name (sessionDirName). */
  readonly session: string;
  readonly spec: SessionSpec;
  readonly sessionKey: string;
  readonly t: number;
  /** The rung whose framing the call is made at (a split agent's planner: R1, its builder: R3). */
  readonly rung: Rung;
  /** The called model's price; null when free or unknown. */
  readonly price: Price | null;
  /** A split agent's role: its attempts and costs are filed under it. */
  readonly role?: SplitRole;
  /** Attempts already recorded for this turn since the last replacement run. */
  readonly previous: readonly AttemptRecord[];
}

export type CallOutcome<P extends Parsed> =
  | { readonly kind: 'reply'; readonly response: GenerateResponse; readonly parsed: P; readonly reused?: ReusedReply }
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
 * Calls the provider for one decision turn under the rerun rules, recording
 * every attempt. A transport error is retried by Temporal after 1.5 s × its
 * number (or the provider's retry-after, if longer, up to
 * `spec.maxRetryAfterSeconds`), at most three in all; a permanent error stops
 * the session. Under an adaptive limit a throttled reply (429, 529, an
 * overloaded 503) is counted apart, at most MAX_THROTTLED_RETRIES a turn,
 * with the same waits by its own number: it bills nothing. Each reply is recorded, whole, the moment the call returns; an
 * activity retried after its worker died finds the turn's reply there and uses
 * it (`reused`) instead of paying for the call again.
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
  request: Omit<GenerateRequest, 'call' | 'attempt' | 'sampleSeed'>,
  call: CallContext,
  parse: (reply: ModelReply) => P,
): Promise<CallOutcome<P>> {
  const { spec, t, rung } = call;
  const context = Context.current();
  const activityAttempt = context.info.attempt;
  const onRecord = replyOnRecord(call.previous);
  if (onRecord) {
    // The reply was paid for and recorded, then the worker died before the turn was: use it, never call again.
    await ensureCostRecorded(call, onRecord);
    const response = recordedResponse(onRecord);
    const parsed = cutOff(parse(response), response, request.maxOutputTokens);
    return {
      kind: 'reply',
      response,
      parsed,
      reused: { attempt: onRecord.attempt, recordedBy: onRecord.activityAttempt, reusedBy: activityAttempt },
    };
  }
  let attempt = call.previous.length;
  let emptyReplies = call.previous.filter((a) => a.outcome === 'empty-reply').length;
  const record = async (fields: Omit<AttemptRecord, 'type' | 'at' | 't' | 'attempt' | 'activityAttempt'>): Promise<AttemptRecord> => {
    const entry: AttemptRecord = {
      type: 'attempt',
      at: new Date().toISOString(),
      t,
      ...(call.role && { role: call.role }),
      attempt,
      activityAttempt,
      ...fields,
    };
    await call.store.appendTranscript(call.session, entry);
    return entry;
  };
  const emptyFence = provider.local && isToolRung(rung);
  for (;;) {
    attempt++;
    const started = Date.now();
    // A re-ask after an empty reply: the turn's conversation, then the reminder (the empty reply is dropped).
    const reminder = emptyFence && emptyReplies > 0 ? formatReminder(rung) : undefined;
    const messages: readonly ChatMessage[] = reminder ? [...request.messages, { role: 'user', content: reminder }] : request.messages;
    const hash = requestHash(provider.model, { ...request, messages });
    let response: GenerateResponse;
    try {
      response = await withHeartbeat(() =>
        provider.generate({
          ...request,
          messages,
          call: t,
          attempt,
          sampleSeed: seedFor(conversationKey(call.sessionKey, call.role), t, attempt),
        }),
      );
    } catch (error) {
      const failure = provider.classify(error);
      const { errorClass, retryAfterMs, replayedFrom } = failure;
      const message = redactSecrets(error instanceof Error ? error.message : String(error));
      // A transport error ends this activity attempt, so the turn's earlier failures are all on record before it.
      const next = afterFailure(call.previous, failure, provider.adaptiveConcurrency === true, spec.maxRetryAfterSeconds);
      await record({
        latencyMs: Date.now() - started,
        outcome: errorClass === 'permanent' ? 'permanent-error' : 'transport-error',
        error: message,
        ...(reminder && { reminder }),
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
        usageEstimated: false,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
        ...(next.throttled && { throttled: true }),
        ...(next.retried && { waitMs: next.waitMs, ...(next.capped && { waitCapped: true }) }),
        request: hash,
        ...(replayedFrom !== undefined && { replayedFrom }),
      });
      if (errorClass === 'permanent') return { kind: 'stopped', reason: 'provider-error' };
      if (!next.retried) return { kind: 'stopped', reason: 'transport-exhausted' };
      throw ApplicationFailure.create({
        type: 'TransportError',
        message: `turn ${t}, attempt ${attempt}: ${message}`,
        nextRetryDelay: next.waitMs,
      });
    }
    const parsed = cutOff(parse(response), response, request.maxOutputTokens);
    // A replayed reply was paid for by the run it was recorded in: it costs nothing here.
    const costUsd = response.replayedFrom
      ? 0
      : (response.costUsd ?? (call.price ? costOf(response.usage, call.price) : provider.local ? 0 : undefined));
    const askAgain =
      emptyFence &&
      !parsed.resolved &&
      response.toolCalls.length === 0 &&
      response.stopReason !== 'length' &&
      emptyReplies + 1 < spec.emptyRetries;
    // The reply, its usage, stop reason and cost go on record before anything else is done with it.
    const recorded = await record({
      latencyMs: Date.now() - started,
      outcome: askAgain ? 'empty-reply' : 'ok',
      ...(response.stopReason !== null && { stopReason: response.stopReason }),
      ...(reminder && { reminder }),
      usage: response.usage,
      usageEstimated: response.usageEstimated,
      ...(costUsd !== undefined && { costUsd }),
      responseModel: response.responseModel,
      modelMatches: identityMatches(provider.apiModel, response.responseModel),
      reply: replyOf(response),
      request: hash,
      ...(response.replayedFrom !== undefined && { replayedFrom: response.replayedFrom }),
    });
    crashAfterReplyIfAsked(t, call.role, activityAttempt);
    if (costUsd)
      await call.store.recordCost({ at: recorded.at, session: call.sessionKey, t, ...(call.role && { role: call.role }), costUsd });
    if (!askAgain) return { kind: 'reply', response, parsed };
    emptyReplies++;
  }
}

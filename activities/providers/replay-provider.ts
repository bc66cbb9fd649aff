import { replyOf, type ModelReply } from '../../core/chat/messages.js';
import { conversationOf, sessionDirOfKey } from '../../core/sweep/session-spec.js';
import type { ReplaySetting } from '../../core/sweep/sweep-config.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { attemptKey, type AttemptRecord, type TranscriptRecord } from '../../run-store/transcript.js';
import { ProviderError, type ErrorClass, type GenerateRequest, type GenerateResponse, type Provider } from './provider.js';
import { requestHash } from './request-hash.js';

/**
 * A recorded error given again: the same class, message and requested wait,
 * and throttled where the recorded run retried it as throttled, so the rerun
 * rules take the same course.
 */
class ReplayedError extends ProviderError {
  constructor(
    message: string,
    errorClass: ErrorClass,
    readonly retryAfterMs: number | undefined,
    readonly throttled: boolean,
    readonly from: string,
  ) {
    super(message, errorClass);
  }
}

/**
 * One recorded session's attempts by role (a split agent's), turn (R3: model
 * call) and attempt; a replacement run's attempts take the places of the
 * earlier ones.
 */
interface RecordedSession {
  readonly callWord: 'turn' | 'call';
  readonly attempts: ReadonlyMap<string, AttemptRecord>;
}

const placeOf = (record: Pick<AttemptRecord, 't' | 'role' | 'attempt'>) => `${attemptKey(record.t, record.role)}#${record.attempt}`;

function recordedSession(records: readonly TranscriptRecord[]): RecordedSession | undefined {
  const start = records.find((record) => record.type === 'session');
  if (!start) return undefined;
  const attempts = new Map<string, AttemptRecord>();
  for (const record of records) if (record.type === 'attempt') attempts.set(placeOf(record), record);
  return { callWord: start.spec.rung === 'R3' ? 'call' : 'turn', attempts };
}

type Found =
  | { readonly kind: 'reply'; readonly record: AttemptRecord & { readonly reply: ModelReply } }
  | { readonly kind: 'error'; readonly record: AttemptRecord }
  | { readonly kind: 'miss'; readonly why: string };

/** Sessions of a recorded run kept read at once (a worker plays a window of sessions). */
const SESSIONS_KEPT = 256;

/**
 * A recorded run's attempts, read through its run store (a directory or a
 * bucket), each session once when first asked for and kept while it is among
 * the most recently used.
 */
export class ReplaySource {
  private readonly sessions = new Map<string, Promise<RecordedSession | undefined>>();

  constructor(readonly from: string) {}

  private session(folder: string): Promise<RecordedSession | undefined> {
    let found = this.sessions.get(folder);
    if (found) this.sessions.delete(folder);
    else found = openRunStore(this.from).readTranscriptRecords(folder).then(recordedSession);
    this.sessions.set(folder, found);
    if (this.sessions.size > SESSIONS_KEPT) this.sessions.delete(this.sessions.keys().next().value as string);
    // A failed read is not kept: the next call reads again.
    found.catch(() => this.sessions.delete(folder));
    return found;
  }

  /** What the recorded run holds for this call: the reply or error of the same session, turn and attempt, if the request is the same. */
  async find(model: string, request: GenerateRequest): Promise<Found> {
    const key = request.conversationKey;
    const miss = (callWord: string, why: string): Found => ({
      kind: 'miss',
      why: `no reply recorded for ${key}, ${callWord} ${request.call}, attempt ${request.attempt}: ${why}`,
    });
    const { sessionKey, role } = conversationOf(key);
    let session: RecordedSession | undefined;
    try {
      session = await this.session(sessionDirOfKey(sessionKey));
    } catch (error) {
      return miss('call', `its transcript cannot be read (${(error as Error).message.split('\n')[0]})`);
    }
    if (!session) return miss('call', 'the run holds no such session');
    const record = session.attempts.get(placeOf({ t: request.call, ...(role && { role }), attempt: request.attempt }));
    if (!record) return miss(session.callWord, 'nothing was recorded there');
    if (record.request !== undefined && record.request !== requestHash(model, request))
      return miss(session.callWord, 'the request differs from the recorded one (a changed prompt, tool, model or limit)');
    if (record.outcome === 'transport-error' || record.outcome === 'permanent-error') return { kind: 'error', record };
    if (!record.reply) return miss(session.callWord, 'the attempt was recorded without its reply');
    return { kind: 'reply', record: record as AttemptRecord & { reply: ModelReply } };
  }
}

/**
 * A provider that answers each call from a recorded run (`--replay-from`):
 * the reply recorded for the same session, turn and attempt, with its usage,
 * stop reason and reported model, provided the request hashes the same as the
 * recorded one (request-hash.ts); a recorded error is raised again with its
 * class. Nothing is paid: the reply carries `replayedFrom`, and its cost is 0.
 * A call the recorded run has no reply to is a permanent error naming the call
 * and why (the session ends as a mechanical failure, `provider-error`), or,
 * with `miss: live`, goes to the live model behind it.
 */
export function replayingProvider(inner: Provider, source: ReplaySource, miss: ReplaySetting['miss']): Provider {
  return {
    model: inner.model,
    apiModel: inner.apiModel,
    local: inner.local,
    ...(inner.adaptiveConcurrency !== undefined && { adaptiveConcurrency: inner.adaptiveConcurrency }),
    // The recorded run is checked before the sweep starts; the live model only matters if a miss may reach it.
    preflight: () => (miss === 'live' ? inner.preflight() : Promise.resolve()),
    classify(error) {
      if (error instanceof ReplayedError)
        return {
          errorClass: error.errorClass,
          replayedFrom: error.from,
          ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
          ...(error.throttled && { throttled: 'recorded' }),
        };
      if (error instanceof ProviderError) return { errorClass: error.errorClass };
      return inner.classify(error);
    },
    async generate(request): Promise<GenerateResponse> {
      const found = await source.find(inner.model, request);
      if (found.kind === 'reply') {
        const { record } = found;
        return {
          ...replyOf(record.reply),
          usage: record.usage,
          usageEstimated: record.usageEstimated,
          costUsd: 0,
          responseModel: record.responseModel ?? '',
          stopReason: record.stopReason ?? null,
          replayedFrom: source.from,
        };
      }
      if (found.kind === 'error') {
        const { record } = found;
        const errorClass = record.outcome === 'permanent-error' ? 'permanent' : 'transport';
        const message = record.error ?? `${record.outcome} (recorded)`;
        throw new ReplayedError(message, errorClass, record.retryAfterMs, record.throttled === true, source.from);
      }
      if (miss === 'live') return inner.generate(request);
      throw new ProviderError(`replay from ${source.from}: ${found.why}`, 'permanent');
    },
  };
}

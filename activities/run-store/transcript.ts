import type { ModelReply, ToolSpec } from '../../core/chat/messages.js';
import type { ToolResult } from '../../core/rungs/tool-results.js';
import type { DecisionRecord } from '../../core/session/session-record.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import type { Usage } from '../providers/provider.js';
import { appendJsonLine, readJsonLines } from './json-files.js';

/** How a session ended. The mechanical failures permit a replacement run (paper B.6). */
export type Termination = 'stream-end' | 'token-cap' | 'cost-cap' | 'run-cost-cap' | 'transport-exhausted' | 'provider-error';
export const MECHANICAL_FAILURES: readonly Termination[] = ['transport-exhausted', 'provider-error'];

/** Written once, when the session is prepared: what the model is told before the first turn. */
export interface SessionStartRecord {
  readonly type: 'session';
  readonly at: string;
  readonly sessionKey: string;
  readonly spec: SessionSpec;
  readonly streamHash: string;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
}

/** One provider call: the retry audit Temporal's history does not keep. */
export interface AttemptRecord {
  readonly type: 'attempt';
  readonly at: string;
  readonly t: number;
  /** Provider calls for this turn so far, this one included, 1-based. */
  readonly attempt: number;
  /** Temporal's attempt number of the activity (larger when a worker died mid-call). */
  readonly activityAttempt: number;
  readonly latencyMs: number;
  /** 'empty-reply': a local model's reply without a tool call, sampled again (paper F.5). */
  readonly outcome: 'ok' | 'empty-reply' | 'transport-error' | 'permanent-error';
  readonly error?: string;
  readonly usage: Usage;
  readonly usageEstimated: boolean;
  /** USD, when the provider's prices are known. */
  readonly costUsd?: number;
  readonly responseModel?: string;
  /** Whether the reported model is the one requested (or a dated snapshot of it). */
  readonly modelMatches?: boolean;
  /** The reply, for attempts whose reply did not become the turn's (empty replies re-sampled). */
  readonly reply?: ModelReply;
}

/** A completed decision turn; the conversation is rebuilt from these alone. */
export interface TurnRecord {
  readonly type: 'turn';
  readonly at: string;
  readonly t: number;
  readonly user: string;
  readonly reply: ModelReply;
  readonly toolResults: readonly ToolResult[];
  readonly decision: DecisionRecord;
  /** Why the reply was not a valid decision, when it was not. */
  readonly detail?: string;
  readonly usage: Usage;
  readonly responseModel: string;
}

/** A replacement run after a mechanical failure: the rerun rules count attempts afresh from here. */
export interface ResumeRecord {
  readonly type: 'resume';
  readonly at: string;
  readonly after: Termination;
}

export interface EndRecord {
  readonly type: 'end';
  readonly at: string;
  readonly termination: Termination;
}

export type TranscriptRecord = SessionStartRecord | AttemptRecord | TurnRecord | ResumeRecord | EndRecord;

/** A transcript as the activities need it. */
export interface Transcript {
  readonly records: readonly TranscriptRecord[];
  readonly start?: SessionStartRecord;
  /** Completed turns in order, one per turn (a duplicate line, from a crashed writer, is ignored). */
  readonly turns: readonly TurnRecord[];
  /** Tokens used over every attempt, input and output. */
  readonly tokensUsed: number;
  /** USD spent over every attempt whose cost is known. */
  readonly costUsd: number;
  /** Attempts at turn t since the last replacement run. */
  attemptsSinceResume(t: number): AttemptRecord[];
  /** The last record, if it is an end record. */
  readonly ended?: Termination;
}

export async function readTranscript(path: string): Promise<Transcript> {
  const records = await readJsonLines<TranscriptRecord>(path);
  const turns = new Map<number, TurnRecord>();
  let tokensUsed = 0;
  let costUsd = 0;
  let lastResume = -1;
  records.forEach((record, index) => {
    if (record.type === 'turn' && !turns.has(record.t)) turns.set(record.t, record);
    if (record.type === 'attempt') {
      tokensUsed += record.usage.inputTokens + record.usage.outputTokens;
      costUsd += record.costUsd ?? 0;
    }
    if (record.type === 'resume') lastResume = index;
  });
  const last = records.at(-1);
  return {
    records,
    start: records.find((r): r is SessionStartRecord => r.type === 'session'),
    turns: [...turns.values()].sort((a, b) => a.t - b.t),
    tokensUsed,
    costUsd,
    attemptsSinceResume: (t) =>
      records.slice(lastResume + 1).filter((r): r is AttemptRecord => r.type === 'attempt' && r.t === t),
    ...(last?.type === 'end' && { ended: last.termination }),
  };
}

export const appendRecord = (path: string, record: TranscriptRecord) => appendJsonLine(path, record);

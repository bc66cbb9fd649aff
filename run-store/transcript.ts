import type { ModelReply, StopReason, ToolCall, ToolSpec } from '../core/chat/messages.js';
import type { ToolResult } from '../core/rungs/tool-results.js';
import type { LoopOutcome } from '../core/scripts/agent-loop.js';
import { readLoopCalls, type LoopCall } from '../core/scripts/read-loop-calls.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import { MECHANICAL_FAILURES, type Termination } from '../core/session/termination.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { Usage } from '../core/chat/usage.js';
import type { ScriptOutcome } from '../core/scripts/script-outcome.js';
import type { SplitRole } from '../core/rungs/rung.js';

/** Written once, when the session is prepared: what the model is told before the first turn (a split agent: its builder). */
export interface SessionStartRecord {
  readonly type: 'session';
  readonly at: string;
  readonly sessionKey: string;
  readonly spec: SessionSpec;
  readonly streamHash: string;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  /** A split agent's planner: what it is told before its first turn. */
  readonly planner?: { readonly system: string; readonly tools: readonly ToolSpec[] };
}

/** One provider call: the retry audit Temporal's history does not keep. */
export interface AttemptRecord {
  readonly type: 'attempt';
  readonly at: string;
  /** The decision turn; at R3 the session's model call (a problem takes many). */
  readonly t: number;
  /** A split agent's call: the planner's decision turn t, or the builder's model call t. Absent for a single agent. */
  readonly role?: SplitRole;
  /** Provider calls for this turn so far, this one included, 1-based. */
  readonly attempt: number;
  /** Temporal's attempt number of the activity (larger when a worker died mid-call). */
  readonly activityAttempt: number;
  readonly latencyMs: number;
  /** 'empty-reply': a local model's reply without a tool call, dropped and the turn asked again (paper F.5, HARNESS.md). */
  readonly outcome: 'ok' | 'empty-reply' | 'transport-error' | 'permanent-error';
  readonly error?: string;
  /** Why the reply ended (absent for errors, and in records written before stop reasons were kept). */
  readonly stopReason?: StopReason;
  /** The format reminder sent after the turn's message: this attempt re-asked the turn after an empty reply. */
  readonly reminder?: string;
  /** Every component the provider reported: input (all of it), cache reads and writes, output, reasoning. */
  readonly usage: Usage;
  readonly usageEstimated: boolean;
  /** USD, when the provider's prices are known. */
  readonly costUsd?: number;
  readonly responseModel?: string;
  /** Whether the reported model is the one requested (or a dated snapshot of it). */
  readonly modelMatches?: boolean;
  /**
   * The reply, written as soon as the call returns, before anything else is
   * done with it: a retried activity that finds the turn's standing reply here
   * uses it instead of paying for another call. Kept for dropped empty replies
   * too; absent in records written before replies were kept.
   */
  readonly reply?: ModelReply;
  /**
   * A throttled reply (429, 529, an overloaded 503) under an adaptive limit: retried without counting toward the
   * rerun rule's three attempts (activities/provider-call.ts).
   */
  readonly throttled?: boolean;
  /** A transport error's requested wait (retry-after-ms or Retry-After), when the provider sent one. */
  readonly retryAfterMs?: number;
  /** How long the next attempt waited after this failed one: the rerun rule's step, or retry-after up to the cap. */
  readonly waitMs?: number;
  /** retry-after asked for longer than the cap (maxRetryAfterSeconds), so the cap was waited instead. */
  readonly waitCapped?: boolean;
  /**
   * SHA-256 of the request as rendered for the provider (activities/providers/request-hash.ts): what a replay
   * checks a new request against. Absent in records written before requests were hashed, and in imported runs.
   */
  readonly request?: string;
  /** The reply or error is the one recorded in this run for the same session, turn and attempt (a replay): nothing was paid. */
  readonly replayedFrom?: string;
}

/** A retried activity found the turn's reply on record (its worker died before the turn was) and used it instead of calling again. */
export interface ReusedReply {
  /** The provider attempt whose recorded reply stands. */
  readonly attempt: number;
  /** Temporal's attempt number of the activity that recorded that reply. */
  readonly recordedBy: number;
  /** Temporal's attempt number of the activity that used it. */
  readonly reusedBy: number;
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
  /** The reply came from the record of an earlier activity attempt, not from a new call. */
  readonly reused?: ReusedReply;
}

/**
 * One model call of an R3 session (HARNESS.md, R3: many calls per problem)
 * and what each of its tool calls did. The conversation is rebuilt from these
 * and the script runs; attempts are keyed by the call index.
 */
export interface LoopStepRecord {
  readonly type: 'loop-step';
  readonly at: string;
  /** The session's model call, 1-based. */
  readonly call: number;
  /** The problem it was made on, 1-based. */
  readonly t: number;
  readonly classId: number;
  readonly occurrence: number;
  /** The user message that opened this call (the problem, or a format reminder); absent when only tool results preceded it. */
  readonly user?: string;
  readonly reply: ModelReply;
  /** One per tool call of the reply, in order. */
  readonly outcomes: readonly LoopOutcome[];
  /** The problem ended with this reply. */
  readonly advanced: 'submitted' | 'forced' | null;
  /** The submitted answer, exactly as given, and whether it is the gold answer. */
  readonly submitted?: { readonly value: string; readonly correct: boolean };
  /** The cap less every token counted so far, this call included; null without a cap. */
  readonly tokensRemaining: number | null;
  readonly writesLeft: number;
  readonly usage: Usage;
  readonly responseModel: string;
  /** The reply came from the record of an earlier activity attempt, not from a new call. */
  readonly reused?: ReusedReply;
}

/** Written before a script runs, so a retry after a lost sandbox worker knows the script was the last thing it ran. */
export interface ExecutionStartRecord {
  readonly type: 'execution-start';
  readonly at: string;
  readonly call: number;
  /** The run_script call's position in the reply. */
  readonly index: number;
}

/** A script's run for one run_script call, on the inputs the model passed. */
export interface ExecutionRecord {
  readonly type: 'execution';
  readonly at: string;
  readonly call: number;
  readonly index: number;
  /** The problem it ran on. */
  readonly t: number;
  readonly name: string;
  readonly outcome: ExecutionOutcome;
  /** The script returned the gold answer of problem t. */
  readonly correct: boolean;
}

const parsedCalls = new WeakMap<LoopStepRecord, readonly LoopCall[]>();

/** A recorded R3 step's tool calls, read once per process (records are shared by every read of their transcript). */
export function callsOfStep(step: LoopStepRecord): readonly LoopCall[] {
  let calls = parsedCalls.get(step);
  if (!calls) parsedCalls.set(step, (calls = readLoopCalls(step.reply)));
  return calls;
}

/** The key of a run_script call: its model call and its position in the reply. */
export const runKey = (call: number, index: number) => `${call}:${index}`;

/** The sandbox's outcome, or the loss of the sandbox worker while the script ran. */
export type ExecutionOutcome =
  | ScriptOutcome
  | { readonly ok: false; readonly kind: 'worker-lost'; readonly error: string; readonly ms: number; readonly logs: string };

/**
 * A run of the session after its last one ended short of finishing: a
 * replacement run after a mechanical failure (the rerun rules count attempts
 * afresh from here), or a run that goes on after a cost cap or a cancel.
 */
export interface ResumeRecord {
  readonly type: 'resume';
  readonly at: string;
  readonly after: Termination;
}

/** One message of a conversation kept whole: an imported R3 session's history, whose calls are not split into our turns. */
export interface MessageRecord {
  readonly type: 'message';
  readonly at: string;
  /** The problem (1-based) the message belongs to. */
  readonly t: number;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly text: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly toolCallId?: string;
}

/** The session was cancelled (a cancel of its sweep) after the records before this; run again, it goes on from them. */
export interface CancelledRecord {
  readonly type: 'cancelled';
  readonly at: string;
}

export interface EndRecord {
  readonly type: 'end';
  readonly at: string;
  readonly termination: Termination;
}

export type TranscriptRecord =
  | SessionStartRecord
  | AttemptRecord
  | TurnRecord
  | LoopStepRecord
  | ExecutionStartRecord
  | ExecutionRecord
  | ResumeRecord
  | MessageRecord
  | CancelledRecord
  | EndRecord;

/** A transcript as the activities need it. */
export interface Transcript {
  readonly records: readonly TranscriptRecord[];
  readonly start?: SessionStartRecord;
  /** Completed turns in order, one per turn (a duplicate line, from a crashed writer, is ignored). */
  readonly turns: readonly TurnRecord[];
  /** R3: model calls in order, one per call. */
  readonly steps: readonly LoopStepRecord[];
  /** R3: script runs by runKey. */
  readonly executions: ReadonlyMap<string, ExecutionRecord>;
  /** R3: how many times each run_script call's script was started, by runKey (more than once when a sandbox worker was lost). */
  readonly executionStarts: ReadonlyMap<string, number>;
  /** Tokens counted against the session cap over every attempt: uncached input plus output (countedTokens). */
  readonly tokensUsed: number;
  /** USD spent over every attempt whose cost is known. */
  readonly costUsd: number;
  /** Attempts at turn t (R3: at model call t; a split agent: of this role's) since the last replacement run. */
  attemptsSinceResume(t: number, role?: SplitRole): AttemptRecord[];
  /** The last record, if it is an end record. */
  readonly ended?: Termination;
  /** Whether the last record says the session was cancelled. */
  readonly cancelled: boolean;
}

/**
 * The tokens a call counts against the session cap, as the paper's harness
 * counted them (HARNESS.md, Tokens): uncached input plus output. Cache reads
 * and cache writes are left out, or every long session would stop early.
 */
export function countedTokens(usage: Usage): number {
  return usage.inputTokens - usage.cachedInputTokens - (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
}

/** Where an attempt is filed: its turn, or model call, within its role's. */
export const attemptKey = (t: number, role?: SplitRole) => (role ? `${role}:${t}` : `${t}`);

/**
 * A transcript folded one record at a time, so that a reader that has folded
 * the start of the transcript folds only what was appended since.
 */
export class TranscriptFold {
  readonly records: TranscriptRecord[] = [];
  start?: SessionStartRecord;
  readonly turns: TurnRecord[] = [];
  readonly steps: LoopStepRecord[] = [];
  readonly executions = new Map<string, ExecutionRecord>();
  readonly executionStarts = new Map<string, number>();
  tokensUsed = 0;
  costUsd = 0;
  private attemptsByT = new Map<string, AttemptRecord[]>();
  private readonly turnsSeen = new Set<number>();
  private readonly callsSeen = new Set<number>();

  add(record: TranscriptRecord): void {
    this.records.push(record);
    switch (record.type) {
      case 'session':
        this.start ??= record;
        break;
      case 'turn':
        if (this.turnsSeen.has(record.t)) break;
        this.turnsSeen.add(record.t);
        insertInOrder(this.turns, record, (turn) => turn.t);
        break;
      case 'loop-step':
        if (this.callsSeen.has(record.call)) break;
        this.callsSeen.add(record.call);
        insertInOrder(this.steps, record, (step) => step.call);
        break;
      case 'execution-start': {
        const key = runKey(record.call, record.index);
        this.executionStarts.set(key, (this.executionStarts.get(key) ?? 0) + 1);
        break;
      }
      case 'execution': {
        const key = runKey(record.call, record.index);
        if (!this.executions.has(key)) this.executions.set(key, record);
        break;
      }
      case 'attempt': {
        this.tokensUsed += countedTokens(record.usage);
        this.costUsd += record.costUsd ?? 0;
        const key = attemptKey(record.t, record.role);
        const attempts = this.attemptsByT.get(key);
        if (attempts) attempts.push(record);
        else this.attemptsByT.set(key, [record]);
        break;
      }
      case 'resume':
        if (MECHANICAL_FAILURES.includes(record.after)) this.attemptsByT = new Map();
        break;
    }
  }

  /** What readers get: the records so far, unaffected by what is folded later. */
  snapshot(): Transcript {
    const last = this.records.at(-1);
    const attemptsByT = new Map([...this.attemptsByT].map(([t, attempts]) => [t, [...attempts]]));
    return {
      records: [...this.records],
      ...(this.start && { start: this.start }),
      turns: [...this.turns],
      steps: [...this.steps],
      executions: new Map(this.executions),
      executionStarts: new Map(this.executionStarts),
      tokensUsed: this.tokensUsed,
      costUsd: this.costUsd,
      attemptsSinceResume: (t, role) => [...(attemptsByT.get(attemptKey(t, role)) ?? [])],
      ...(last?.type === 'end' && { ended: last.termination }),
      cancelled: last?.type === 'cancelled',
    };
  }
}

/** Appends, or inserts where the key belongs when a record arrives out of order (it never does from one writer). */
function insertInOrder<T>(list: T[], item: T, key: (item: T) => number): void {
  let at = list.length;
  while (at > 0 && key(list[at - 1] as T) > key(item)) at--;
  list.splice(at, 0, item);
}

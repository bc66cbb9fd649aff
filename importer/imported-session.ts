import type { ModelReply, ToolCall } from '../core/chat/messages.js';
import type { SessionMetrics } from '../core/metrics/session-metrics.js';
import type { ScriptMetrics } from '../core/scripts/loop-metrics.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Stream } from '../core/stream/stream.js';
import type { Usage } from '../core/chat/usage.js';
import type { SessionSummary } from '../run-store/session-summary.js';
import type { Termination } from '../core/session/termination.js';
import type { MessageRecord } from '../run-store/transcript.js';
import type { PaperMessage, PaperUsage } from './paper-files.js';

/** A stored chat message in our terms. */
export function messageRecord(t: number, message: PaperMessage): ImportedRecord {
  return {
    type: 'message',
    t,
    role: message.role,
    text: message.content ?? '',
    ...(message.tool_calls?.length && { toolCalls: toolCallsOf(message) }),
    ...(message.tool_call_id !== undefined && { toolCallId: message.tool_call_id }),
  };
}

/** A stored message's tool calls in our terms (null arguments read as none). */
export function toolCallsOf(message: PaperMessage): ToolCall[] {
  return (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }));
}

/** One seed of an imported arm, recomputed by our core from the stored decisions and the stored stream. */
export interface ImportedSession {
  readonly seed: number;
  readonly stream: Stream;
  readonly modelKey: string;
  readonly termination: Termination;
  /** Every decision turn of the stream (R3: the builds replayed through the whole stream). */
  readonly decisions: readonly DecisionRecord[];
  readonly metrics: SessionMetrics;
  readonly script?: ScriptMetrics;
  /** What the transcript page and the audit show: turns (R0–R2) or messages (R3), and one attempt per provider call. */
  readonly transcript: readonly ImportedRecord[];
  readonly usage: SessionSummary['usage'];
  readonly costUsd: number;
  readonly calls: number;
  /** Decision turns the source stored (R0–R2). */
  readonly decisionTurnsStored: number;
  readonly responseModels: readonly string[];
  /** Where the stored summary disagrees with our recomputation. */
  readonly differences: readonly SummaryDifference[];
  /** Every stored decision reply read again by our parser (R0–R2); null at R3. */
  readonly reparse: Reparse | null;
  /** Turns whose stored reading (`how`) no version of the authors' harness writes (importer/stored-reading.ts). */
  readonly unknownReadings: readonly UnknownReading[];
}

export interface UnknownReading {
  readonly seed: number;
  readonly turn: number;
  readonly how: string;
}

/** A transcript record of an imported session, before the writer stamps it with a time. */
export type ImportedRecord =
  | {
      readonly type: 'attempt';
      readonly t: number;
      readonly attempt: number;
      readonly outcome: 'ok' | 'empty-reply' | 'transport-error';
      readonly usage: Usage;
      readonly responseModel?: string;
    }
  | {
      readonly type: 'turn';
      readonly t: number;
      readonly user: string;
      readonly reply: ModelReply;
      readonly toolResults: readonly { readonly toolCallId: string; readonly content: string }[];
      readonly decision: DecisionRecord;
      readonly detail: string;
      readonly usage: Usage;
      readonly responseModel: string;
    }
  | Omit<MessageRecord, 'at'>;

export interface SummaryDifference {
  readonly seed: number;
  readonly field: string;
  readonly stored: number;
  readonly ours: number;
}

export interface ReparseDisagreement {
  readonly seed: number;
  readonly turn: number;
  readonly stored: string;
  readonly ours: string;
}

export interface Reparse {
  readonly turns: number;
  readonly agree: number;
  readonly disagreements: readonly ReparseDisagreement[];
}

/**
 * Usage in our terms (every input token, cached or not; cached reads apart).
 * Anthropic's input_tokens leaves cache reads and writes out; OpenAI's and
 * local servers' include them.
 */
export function usageOf(usage: PaperUsage, anthropic: boolean): Usage {
  // A count the harness did not record (an empty usage object after a failed call) is none.
  const cacheRead = usage.cache_read_tokens ?? 0;
  const cacheWrite = usage.cache_write_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + (anthropic ? cacheRead + cacheWrite : 0),
    outputTokens: usage.output_tokens ?? 0,
    cachedInputTokens: cacheRead,
    ...(cacheWrite > 0 && { cacheWriteTokens: cacheWrite }),
  };
}

export function usageTotals(usages: readonly Usage[]): ImportedSession['usage'] {
  const sum = (pick: (u: Usage) => number) => usages.reduce((total, u) => total + pick(u), 0);
  return {
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    cachedInputTokens: sum((u) => u.cachedInputTokens),
    estimated: false,
  };
}

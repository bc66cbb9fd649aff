import type { SessionMetrics } from '../core/metrics/session-metrics.js';
import type { ScriptMetrics } from '../core/scripts/loop-metrics.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { MECHANICAL_FAILURES, type Termination } from '../core/session/termination.js';
import type { AttemptRecord } from './transcript.js';

/** summary.json: everything analysis needs about one session, without reading its transcript. */
export interface SessionSummary {
  readonly sessionKey: string;
  readonly spec: SessionSpec;
  readonly streamHash: string;
  readonly termination: Termination;
  readonly mechanicalFailure: boolean;
  /** Every decision turn of the stream; turns never reached are 'truncated'. At R3 the builds replayed through the stream. */
  readonly decisions: readonly DecisionRecord[];
  /** At R3, builds are the commitments (paper F.5). */
  readonly metrics: SessionMetrics;
  /** R3 only: R3's own diagnostics. */
  readonly script?: { readonly metrics: ScriptMetrics };
  /** Model identities the responses reported. */
  readonly responseModels: readonly string[];
  /** True when some response reported a model other than the one requested. */
  readonly modelMismatch: boolean;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedInputTokens: number;
    readonly estimated: boolean;
  };
  /** USD over every attempt whose cost is known. */
  readonly costUsd: number;
  readonly attempts: {
    readonly total: number;
    readonly transportErrors: number;
    readonly permanentErrors: number;
    readonly retriedTurns: number;
  };
  readonly finishedAt: string;
  /** When `allocbench rescore` last read the session's replies again and rewrote this summary (the previous one kept beside it). */
  readonly rescoredAt?: string;
}

/** What a summary says of the calls: models, tokens, cost and retries. */
export type SummaryAccounting = Pick<SessionSummary, 'responseModels' | 'modelMismatch' | 'usage' | 'costUsd' | 'attempts'>;

/** The accounting of a session from its attempt records and the USD its transcript sums. */
export function accountingOf(attempts: readonly AttemptRecord[], costUsd: number): SummaryAccounting {
  const sum = (pick: (a: AttemptRecord) => number) => attempts.reduce((total, a) => total + pick(a), 0);
  return {
    responseModels: [...new Set(attempts.flatMap((a) => (a.responseModel ? [a.responseModel] : [])))],
    modelMismatch: attempts.some((a) => a.modelMatches === false),
    usage: {
      inputTokens: sum((a) => a.usage.inputTokens),
      outputTokens: sum((a) => a.usage.outputTokens),
      cachedInputTokens: sum((a) => a.usage.cachedInputTokens),
      estimated: attempts.some((a) => a.usageEstimated),
    },
    costUsd,
    attempts: {
      total: attempts.length,
      transportErrors: attempts.filter((a) => a.outcome === 'transport-error').length,
      permanentErrors: attempts.filter((a) => a.outcome === 'permanent-error').length,
      retriedTurns: new Set(attempts.filter((a) => a.outcome !== 'ok').map((a) => a.t)).size,
    },
  };
}

/** A session's summary: the one place one is built (a finished session, an imported one, a synthetic one). */
export function buildSessionSummary(parts: {
  readonly spec: SessionSpec;
  readonly streamHash: string;
  readonly termination: Termination;
  readonly decisions: readonly DecisionRecord[];
  readonly metrics: SessionMetrics;
  readonly script?: ScriptMetrics | undefined;
  readonly accounting: SummaryAccounting;
  readonly finishedAt: string;
  readonly rescoredAt?: string;
}): SessionSummary {
  const { spec, accounting } = parts;
  return {
    sessionKey: sessionKey(spec),
    spec,
    streamHash: parts.streamHash,
    termination: parts.termination,
    mechanicalFailure: MECHANICAL_FAILURES.includes(parts.termination),
    decisions: parts.decisions,
    metrics: parts.metrics,
    ...(parts.script && { script: { metrics: parts.script } }),
    responseModels: accounting.responseModels,
    modelMismatch: accounting.modelMismatch,
    usage: accounting.usage,
    costUsd: accounting.costUsd,
    attempts: accounting.attempts,
    finishedAt: parts.finishedAt,
    ...(parts.rescoredAt !== undefined && { rescoredAt: parts.rescoredAt }),
  };
}

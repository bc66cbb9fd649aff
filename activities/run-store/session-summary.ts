import type { SessionMetrics } from '../../core/metrics/session-metrics.js';
import type { ScriptMetrics } from '../../core/scripts/loop-metrics.js';
import type { DecisionRecord } from '../../core/session/session-record.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import type { Termination } from '../../core/session/termination.js';

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
}

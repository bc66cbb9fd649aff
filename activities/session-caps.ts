import type { Termination } from '../core/session/termination.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { replyOnRecord } from './provider-call.js';
import type { RunStore } from '../run-store/run-store.js';
import type { AttemptRecord, Transcript } from '../run-store/transcript.js';

/**
 * The cap that stops a session before its next call, if any: tokens, its own
 * cost, or the run's cost. A reply already paid for at this call (`previous`,
 * its attempts) stands, even if it took the session past a cap, as it would
 * have had its worker lived.
 */
export async function reachedCap(
  store: RunStore,
  spec: SessionSpec,
  transcript: Transcript,
  previous: readonly AttemptRecord[],
): Promise<Termination | null> {
  if (replyOnRecord(previous)) return null;
  if (spec.tokenCap !== null && transcript.tokensUsed >= spec.tokenCap) return 'token-cap';
  if (spec.costCap !== null && transcript.costUsd >= spec.costCap) return 'cost-cap';
  if (spec.runCap !== null && (await store.runCostUsd()) >= spec.runCap) return 'run-cost-cap';
  return null;
}

import type { Termination } from '../core/session/termination.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { CostCaps } from '../core/sweep/expand-sweep.js';
import { replyOnRecord } from './provider-call.js';
import type { RunStore } from '../run-store/run-store.js';
import type { AttemptRecord, Transcript } from '../run-store/transcript.js';

/**
 * The cap that stops a session before its next call, if any: its tokens (the
 * experiment's own limit), its cost or the run's cost (the invocation's caps).
 * A reply already paid for at this call (`previous`, its attempts) stands,
 * even if it took the session past a cap, as it would have had its worker
 * lived. So the run cap is overshot by at most the calls already under way
 * when it is reached, one per session in flight.
 */
export async function reachedCap(
  store: RunStore,
  spec: SessionSpec,
  caps: CostCaps,
  transcript: Transcript,
  previous: readonly AttemptRecord[],
): Promise<Termination | null> {
  if (replyOnRecord(previous)) return null;
  if (spec.tokenCap !== null && transcript.tokensUsed >= spec.tokenCap) return 'token-cap';
  if (caps.unitCap !== null && transcript.costUsd >= caps.unitCap) return 'cost-cap';
  if (caps.runCap !== null && (await store.runCostUsd()) >= caps.runCap) return 'run-cost-cap';
  return null;
}

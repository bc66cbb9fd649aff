import type { SessionSpec } from '../core/sweep/session-spec.js';
import { runCostUsd } from './run-store/cost-ledger.js';
import type { Termination } from '../core/session/termination.js';
import type { Transcript } from './run-store/transcript.js';

/** The cap a session has reached before its next call, if any: tokens, its own cost, or the run's cost. */
export async function reachedCap(runDir: string, spec: SessionSpec, transcript: Transcript): Promise<Termination | null> {
  if (spec.tokenCap !== null && transcript.tokensUsed >= spec.tokenCap) return 'token-cap';
  if (spec.costCap !== null && transcript.costUsd >= spec.costCap) return 'cost-cap';
  if (spec.runCap !== null && (await runCostUsd(runDir)) >= spec.runCap) return 'run-cost-cap';
  return null;
}

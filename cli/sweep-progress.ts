import { SingleBar } from 'cli-progress';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { LedgerState } from '../core/sweep/session-ledger.js';
import { KEEPER_ACTIVITY_TYPE } from '../protocol/activities.js';
import { progressQuery, type SweepProgress } from '../workflows/sweep-progress.js';

/**
 * The sweep's progress now: from its keeper's last heartbeat (its ledger), or
 * from a sweep that runs its sessions as children, its answer to the progress
 * query; undefined between the two (the keeper not started yet).
 */
export async function sweepProgressNow(handle: WorkflowHandle, total: number): Promise<SweepProgress | undefined> {
  const { raw } = await handle.describe();
  const keeper = raw.pendingActivities?.find((activity) => activity.activityType?.name === KEEPER_ACTIVITY_TYPE);
  const payload = keeper?.heartbeatDetails?.payloads?.[0];
  if (payload) {
    const ledger = defaultPayloadConverter.fromPayload<LedgerState>(payload);
    const ended = ledger.finished + ledger.failed + ledger.cancelled;
    const running = ledger.next - ended;
    return {
      total,
      finished: total - ledger.size + ledger.finished,
      running,
      mechanicalFailures: ledger.mechanicalFailures,
      failed: ledger.failed,
    };
  }
  if (keeper) return undefined;
  return handle.query(progressQuery).catch(() => undefined); // not answerable between runs of a continue-as-new
}

/** A progress bar on stderr while the sweep runs (terminals only). Resolves with the sweep's result. */
export async function withProgressBar(
  handle: WorkflowHandle,
  total: number,
  result: Promise<SweepProgress>,
  enabled: boolean,
): Promise<SweepProgress> {
  if (!enabled || !process.stderr.isTTY) return result;
  const bar = new SingleBar({
    format: 'sessions {bar} {value}/{total} · running {running} · mechanical failures {mechanical} · {duration_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  bar.start(total, 0, { running: 0, mechanical: 0 });
  const update = async () => {
    const p = await sweepProgressNow(handle, total).catch(() => undefined);
    if (p) bar.update(p.finished, { running: p.running, mechanical: p.mechanicalFailures });
  };
  const timer = setInterval(() => void update(), 500);
  try {
    const final = await result;
    bar.update(final.finished, { running: 0, mechanical: final.mechanicalFailures });
    return final;
  } finally {
    clearInterval(timer);
    bar.stop();
  }
}

import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { LedgerState } from '../core/sweep/session-ledger.js';
import { KEEPER_ACTIVITY_TYPE } from '../protocol/activities.js';
import type { RunStore } from '../run-store/run-store.js';
import { progressQuery, type SweepProgress } from '../workflows/sweep-progress.js';

/** What the run store says of a sweep's spending: calls throttled (as the workers last recorded them) and money spent against the cap. */
export interface SpendProgress {
  readonly throttled: number;
  readonly spent: string;
}

/** Reads the run's cost ledger and the workers' adaptive-limit records. */
export async function spendProgress(store: RunStore, capUsd: number | null): Promise<SpendProgress> {
  const [records, spentUsd] = await Promise.all([store.readConcurrency(), store.runCostUsd()]);
  const spent = `$${spentUsd.toFixed(2)}`;
  return {
    throttled: records.reduce((sum, record) => sum + record.throttled, 0),
    spent: capUsd === null ? `${spent} (no cap)` : `${spent} of $${capUsd.toFixed(2)} cap`,
  };
}

/** The run store is read every this many polls of the workflow (a poll is 500 ms): the ledger may be a bucket's. */
const SPEND_EVERY = 4;

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
    const ended = ledger.finished + ledger.stopped + ledger.mechanicalFailures + ledger.failed + ledger.cancelled;
    const running = ledger.next - ended;
    return {
      total,
      finished: total - ledger.size + ledger.finished,
      stopped: ledger.stopped,
      cancelled: ledger.cancelled,
      running,
      mechanicalFailures: ledger.mechanicalFailures,
      failed: ledger.failed,
    };
  }
  if (keeper) return undefined;
  return handle.query(progressQuery).catch(() => undefined); // not answerable between runs of a continue-as-new
}

/** What a sweep reports while it runs: its sessions' progress and the run's spending. */
export type ProgressListener = (progress: SweepProgress, spend: SpendProgress) => void;

/**
 * Follows a running sweep until `result` settles, telling `listener` its
 * progress twice a second (the run store's ledger every fourth time, as it may
 * be a bucket's), and once more with the final count. Resolves with the result.
 */
export async function followProgress(
  handle: WorkflowHandle,
  total: number,
  result: Promise<SweepProgress>,
  listener: ProgressListener,
  ledger: { readonly store: RunStore; readonly capUsd: number | null },
): Promise<SweepProgress> {
  let spend: SpendProgress = { throttled: 0, spent: '–' };
  let polls = 0;
  const update = async () => {
    if (polls++ % SPEND_EVERY === 0) spend = await spendProgress(ledger.store, ledger.capUsd).catch(() => spend);
    const progress = await sweepProgressNow(handle, total).catch(() => undefined);
    if (progress) listener(progress, spend);
  };
  const timer = setInterval(() => void update(), 500);
  try {
    const final = await result;
    listener(final, await spendProgress(ledger.store, ledger.capUsd).catch(() => spend));
    return final;
  } finally {
    clearInterval(timer);
  }
}

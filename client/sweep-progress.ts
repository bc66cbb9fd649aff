import { SingleBar } from 'cli-progress';
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

/**
 * A progress bar on stderr while the sweep runs (terminals only), from the
 * sweep's progress and the run store's ledger. Resolves with the sweep's result.
 */
export async function withProgressBar(
  handle: WorkflowHandle,
  total: number,
  result: Promise<SweepProgress>,
  enabled: boolean,
  ledger: { readonly store: RunStore; readonly capUsd: number | null },
): Promise<SweepProgress> {
  if (!enabled || !process.stderr.isTTY) return result;
  const bar = new SingleBar({
    format:
      'sessions finished {bar} {value}/{total} · running {running} · stopped by the cap {stopped} · mechanical failures {mechanical} · calls throttled {throttled} · spent {spent} · {duration_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  let spend: SpendProgress = { throttled: 0, spent: '–' };
  bar.start(total, 0, { running: 0, stopped: 0, mechanical: 0, ...spend });
  let polls = 0;
  const update = async () => {
    if (polls++ % SPEND_EVERY === 0) spend = await spendProgress(ledger.store, ledger.capUsd).catch(() => spend);
    const p = await sweepProgressNow(handle, total).catch(() => undefined);
    if (p) bar.update(p.finished, { running: p.running, stopped: p.stopped, mechanical: p.mechanicalFailures, ...spend });
  };
  const timer = setInterval(() => void update(), 500);
  try {
    const final = await result;
    spend = await spendProgress(ledger.store, ledger.capUsd).catch(() => spend);
    bar.update(final.finished, { running: 0, stopped: final.stopped, mechanical: final.mechanicalFailures, ...spend });
    return final;
  } finally {
    clearInterval(timer);
    bar.stop();
  }
}

import { SingleBar } from 'cli-progress';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunStore } from '../run-store/run-store.js';
import { progressQuery, type SweepProgress } from '../workflows/sweep-workflow.js';

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
 * A progress bar on stderr while the sweep runs (terminals only), from the
 * sweep workflow's progress query and the run store's ledger. Resolves with
 * the sweep's result.
 */
export async function withProgressBar(
  handle: WorkflowHandle,
  result: Promise<SweepProgress>,
  enabled: boolean,
  ledger: { readonly store: RunStore; readonly capUsd: number | null },
): Promise<SweepProgress> {
  if (!enabled || !process.stderr.isTTY) return result;
  const bar = new SingleBar({
    format:
      'sessions {bar} {value}/{total} · running {running} · mechanical failures {mechanical} · calls throttled {throttled} · spent {spent} · {duration_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  let spend: SpendProgress = { throttled: 0, spent: '–' };
  bar.start(1, 0, { running: 0, mechanical: 0, ...spend });
  let polls = 0;
  const update = async () => {
    try {
      if (polls++ % SPEND_EVERY === 0) spend = await spendProgress(ledger.store, ledger.capUsd);
      const p = await handle.query(progressQuery);
      bar.setTotal(p.total);
      bar.update(p.finished, { running: p.running, mechanical: p.mechanicalFailures, ...spend });
    } catch {
      // Not answerable between runs of a continue-as-new; the next poll catches up.
    }
  };
  const timer = setInterval(() => void update(), 500);
  try {
    const final = await result;
    spend = await spendProgress(ledger.store, ledger.capUsd).catch(() => spend);
    bar.setTotal(final.total);
    bar.update(final.finished, { running: 0, mechanical: final.mechanicalFailures, ...spend });
    return final;
  } finally {
    clearInterval(timer);
    bar.stop();
  }
}

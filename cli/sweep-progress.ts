import { SingleBar } from 'cli-progress';
import type { WorkflowHandle } from '@temporalio/client';
import { progressQuery, type SweepProgress } from '../workflows/sweep-workflow.js';

/**
 * A progress bar on stderr while the sweep runs (terminals only), from the
 * sweep workflow's progress query. Resolves with the sweep's result.
 */
export async function withProgressBar(handle: WorkflowHandle, result: Promise<SweepProgress>, enabled: boolean): Promise<SweepProgress> {
  if (!enabled || !process.stderr.isTTY) return result;
  const bar = new SingleBar({
    format: 'sessions {bar} {value}/{total} · running {running} · mechanical failures {mechanical} · {duration_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  bar.start(1, 0, { running: 0, mechanical: 0 });
  const update = async () => {
    try {
      const p = await handle.query(progressQuery);
      bar.setTotal(p.total);
      bar.update(p.finished, { running: p.running, mechanical: p.mechanicalFailures });
    } catch {
      // Not answerable between runs of a continue-as-new; the next poll catches up.
    }
  };
  const timer = setInterval(() => void update(), 500);
  try {
    const final = await result;
    bar.setTotal(final.total);
    bar.update(final.finished, { running: 0, mechanical: final.mechanicalFailures });
    return final;
  } finally {
    clearInterval(timer);
    bar.stop();
  }
}

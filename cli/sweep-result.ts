import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError, type WorkflowHandle } from '@temporalio/client';
import type { SweepProgress } from '../workflows/sweep-workflow.js';

/** A wait on the sweep gives up only after the server failed to answer for this long in a row. */
const PATIENCE_MS = 15 * 60_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * The sweep workflow's result, waited for as long as it runs. The wait is a
 * long poll of the workflow's history; a busy or restarting server answers
 * some polls with an error (deadline exceeded, unavailable, overloaded), and
 * the client throws a ServiceError for it — the orchestration's trouble, not
 * the sweep's, so the wait is retried with a growing pause, and only a server
 * silent for a quarter of an hour ends it. A failed workflow still fails at once.
 */
export async function sweepResult(handle: WorkflowHandle, say: (line: string) => void = () => undefined): Promise<SweepProgress> {
  let failingSince: number | null = null;
  let failures = 0;
  for (;;) {
    const asked = Date.now();
    try {
      return (await handle.result()) as SweepProgress;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      // A wait that ran a while before failing was answered meanwhile: the server is busy, not gone.
      if (Date.now() - asked > MAX_BACKOFF_MS) [failingSince, failures] = [null, 0];
      failingSince ??= Date.now();
      if (Date.now() - failingSince > PATIENCE_MS) throw error;
      if (failures === 0) say(`the Temporal server did not answer the wait for the sweep (${error.message}); waiting on`);
      await sleep(Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures++, 7)));
    }
  }
}

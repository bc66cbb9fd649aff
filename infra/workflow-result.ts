import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';

/** A call to the server gives up only after the server failed to answer for this long in a row. */
const PATIENCE_MS = 15 * 60_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * A call to the Temporal server, made again while the server answers with an
 * error of its own: a busy or restarting server answers some calls with one
 * (deadline exceeded, unavailable, overloaded), and the client throws a
 * ServiceError for it — the orchestration's trouble, not the workflow's, so
 * the call is made again after a growing pause, and only a server silent for
 * a quarter of an hour ends it, or one known to be gone (`gone`: another
 * command's embedded server, whose process has ended). Any other error (a
 * failed workflow, a refused start) is thrown at once.
 */
export async function patiently<T>(
  call: () => Promise<T>,
  say: (line: string) => void = () => undefined,
  gone: () => boolean = () => false,
): Promise<T> {
  let failingSince: number | null = null;
  let failures = 0;
  for (;;) {
    const asked = Date.now();
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ServiceError) || gone()) throw error;
      // A long poll that ran a while before failing was answered meanwhile: the server is busy, not gone.
      if (Date.now() - asked > MAX_BACKOFF_MS) [failingSince, failures] = [null, 0];
      failingSince ??= Date.now();
      if (Date.now() - failingSince > PATIENCE_MS) throw error;
      if (failures === 0) say(`the Temporal server did not answer (${error.message}); waiting on`);
      await sleep(Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures++, 7)));
    }
  }
}

/** A workflow's result, waited for as long as it runs (a long poll of its history), through a busy or restarting server. */
export function workflowResult<T>(handle: WorkflowHandle, say?: (line: string) => void, gone?: () => boolean): Promise<T> {
  return patiently(() => handle.result() as Promise<T>, say, gone);
}

/** Whether a workflow's result failed because the workflow was cancelled. */
export const cancelledWorkflow = (error: unknown): boolean =>
  error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure;

import { ApplicationFailure } from '@temporalio/common';

/**
 * The failure type of a run-store activity that hit a file-system error no
 * retry can mend (a full disk, a file-size limit, a read-only or unwritable
 * run directory, a file where a directory belongs): thrown non-retryable by
 * the activity, it stops the sweep, and the CLI prints its message, one line
 * naming the file and the cause.
 */
export const RUN_STORE_FAILURE = 'RunStoreFilesystemError';

/** The run-store failure anywhere in a failure's cause chain (activity, child workflow, workflow), if any. */
export function runStoreFailureIn(error: unknown): ApplicationFailure | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 16; at = at.cause, depth++) {
    if (at instanceof ApplicationFailure && at.type === RUN_STORE_FAILURE) return at;
  }
  return undefined;
}

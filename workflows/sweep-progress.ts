import { ApplicationFailure, defineQuery } from '@temporalio/workflow';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { RUN_STORE_FAILURE } from '../protocol/failures.js';

export interface SweepInput {
  readonly runDir: string;
  /** The sweep's name (the SweepId search attribute); session workflow ids are `<sweep workflow id>/<session key>`. */
  readonly sweepId: string;
  readonly config: SweepConfig;
  /**
   * Start sessions eagerly on the keeper's own worker: where the run's only
   * worker is in the sweep's own process (the embedded server). On a cluster
   * the sessions go through the task queue, to whichever worker has room.
   */
  readonly eagerStart?: boolean;
}

/** What a sweep's run came to, or has come to so far. */
export interface SweepProgress {
  readonly total: number;
  /** Sessions finished by the experiment's own rules, before this run of the sweep and in it. */
  readonly finished: number;
  /** Sessions that ended otherwise in this run of the sweep: stopped by a cost cap, cancelled. */
  readonly stopped: number;
  readonly cancelled: number;
  readonly running: number;
  readonly mechanicalFailures: number;
  /** Sessions whose workflow failed outright (a bug, not a benchmark outcome). */
  readonly failed: number;
}

/** A sweep that runs its sessions as children answers this while it runs (sweep-as-children.ts); others heartbeat their progress. */
export const progressQuery = defineQuery<SweepProgress>('progress');

/** The sweep's own failure when a session hit a run-store file-system failure: every other session would hit it too. */
export const sweepStopped = (failure: ApplicationFailure) =>
  ApplicationFailure.create({
    type: RUN_STORE_FAILURE,
    message: failure.message,
    details: failure.details ?? undefined,
    nonRetryable: true,
  });

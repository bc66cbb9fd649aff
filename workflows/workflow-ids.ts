import { experimentHash, type SweepConfig } from '../core/sweep/sweep-config.js';

/** Hex digits of the experiment hash a sweep's workflow ids carry. */
const HASH_DIGITS = 12;

/**
 * The sweep workflow's id, `sweep/<name>@<first 12 hex digits of the
 * experiment hash>`: a sweep resumed with the same settings gets the same id,
 * and another run of the same name with other settings (on a shared cluster)
 * gets its own, never attaching to the first one's workflows. Its sessions
 * are `<sweep workflow id>/<session key>` (protocol/session-workflow.ts). Names cannot hold '@'.
 */
export function sweepWorkflowId(config: SweepConfig): string {
  return `sweep/${config.name}@${experimentHash(config).slice(0, HASH_DIGITS)}`;
}

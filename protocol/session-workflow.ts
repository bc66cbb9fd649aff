import type { Progress } from '../core/session/turn-protocol.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import type { CostCaps } from '../core/sweep/expand-sweep.js';
import type { ModelCallPlacement, ReplaySetting } from '../core/sweep/sweep-config.js';

/*
 * The session workflow as whoever starts it sees it: its type name, its input
 * and its id. A sweep's sessions are started by the sweep's keeper activity
 * (activities/session-keeper.ts), which names the workflow by its type.
 */

export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';

export interface SessionInput {
  readonly runDir: string;
  readonly spec: SessionSpec;
  /** The caps of the invocation that started this run of the session. */
  readonly caps: CostCaps;
  /** A dead worker's call is retried after this long without a heartbeat. */
  readonly heartbeatSeconds: number;
  /** Where the model calls run; unset (sessions begun before it existed): on provider queues. */
  readonly modelCalls?: ModelCallPlacement;
  /** Answer the model calls from this recorded run (a replayed sweep); unset: live calls. */
  readonly replay?: ReplaySetting;
  /** Carried over a continue-as-new: the class sequence, one character per item. */
  readonly classes?: string;
  /** Carried over a continue-as-new: the session's progress (core/session/turn-protocol.ts). */
  readonly progress?: Progress;
}

/** A session's workflow id, `<sweep workflow id>/<session key>`: the same on every run of the same sweep, so a rerun finds it. */
export const sessionWorkflowId = (sweepWorkflowId: string, spec: SessionSpec): string => `${sweepWorkflowId}/${sessionKey(spec)}`;

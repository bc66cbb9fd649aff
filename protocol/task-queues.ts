import type { ModelCallPlacement } from '../core/sweep/sweep-config.js';

/**
 * Task queues. Workflows and the run-store activities share one queue; where
 * model calls are placed on provider queues, each provider has its own, with
 * its own concurrency and server-enforced rate limit.
 */
export const SESSIONS_TASK_QUEUE = 'allocbench-sessions';

/** R3 scripts run only here, in the sandbox worker process. */
export const SANDBOX_TASK_QUEUE = 'allocbench-sandbox';

export function providerTaskQueue(provider: string): string {
  return `allocbench-provider-${provider}`;
}

/**
 * Whether a session's calls to this provider run as local activities on the
 * worker that runs the session (core/sweep/sweep-config.ts, `modelCalls`):
 * the reference-policy agents always do. Each call is still recorded in the
 * run store before it returns, so a lost worker's calls are answered from the
 * record when the session's workflow task runs again, never asked again.
 */
export const callsInSessionWorker = (provider: string, placement: ModelCallPlacement): boolean =>
  provider === 'policy' || placement === 'in-session';

/** The provider part of a `provider/model` id (validated before any session starts). */
export function providerOf(model: string): string {
  return model.slice(0, model.indexOf('/'));
}

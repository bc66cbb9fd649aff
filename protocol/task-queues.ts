/**
 * Task queues. Workflows and the run-store activities share one queue; each
 * provider's model calls get their own, so every provider has its own
 * concurrency and server-enforced rate limit.
 */
export const SESSIONS_TASK_QUEUE = 'allocbench-sessions';

/** R3 scripts run only here, in the sandbox worker process. */
export const SANDBOX_TASK_QUEUE = 'allocbench-sandbox';

export function providerTaskQueue(provider: string): string {
  return `allocbench-provider-${provider}`;
}

/**
 * The reference-policy agents (`policy/...`) answer in microseconds with no
 * network and need no rate limit: their calls run as local activities on the
 * worker that runs the session, with no task-queue round trip. Each call is
 * still recorded in the run store before it returns, so a lost worker's calls
 * are answered from the record on retry, never asked again.
 */
export const callsInSessionWorker = (provider: string): boolean => provider === 'policy';

/** The provider part of a `provider/model` id (validated before any session starts). */
export function providerOf(model: string): string {
  return model.slice(0, model.indexOf('/'));
}

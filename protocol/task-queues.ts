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

/** The provider part of a `provider/model` id (validated before any session starts). */
export function providerOf(model: string): string {
  return model.slice(0, model.indexOf('/'));
}

import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { providerTaskQueue } from '../protocol/task-queues.js';

const { TaskQueueType } = proto.temporal.api.enums.v1; // CommonJS: no named ESM exports
const ACTIVITY = TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;

/**
 * A provider's call rate across a whole cluster: the Temporal server's rate
 * limit on the provider's activity task queue (`temporal task-queue config set
 * --queue-rps-limit`), which every worker's poll of that queue is held to.
 * Set once from the sweep, unlike a worker's `maxTaskQueueActivitiesPerSecond`,
 * which each poller sends and the last one to poll sets for all.
 */
export async function setProviderRate(connection: Connection, namespace: string, provider: string, perSecond: number, reason: string) {
  await connection.workflowService.updateTaskQueueConfig({
    namespace,
    identity: 'allocbench',
    taskQueue: providerTaskQueue(provider),
    taskQueueType: ACTIVITY,
    updateQueueRateLimit: { rateLimit: { requestsPerSecond: perSecond }, reason },
  });
}

/** The rate the server holds the provider's queue to, if one is set there. */
export async function providerRate(connection: Connection, namespace: string, provider: string): Promise<number | undefined> {
  const { config } = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: providerTaskQueue(provider) },
    taskQueueType: ACTIVITY,
    reportConfig: true,
  });
  const rate = config?.queueRateLimit?.rateLimit;
  return rate ? (rate.requestsPerSecond ?? 0) : undefined;
}

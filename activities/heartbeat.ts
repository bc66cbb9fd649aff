import { Context } from '@temporalio/activity';

/** Heartbeats while `work` runs, so a dead worker's activity is retried elsewhere soon. */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  if (context.info.isLocal) return work(); // a local activity is retried when its workflow task is: no heartbeat
  const every = Math.max(1000, (context.info.heartbeatTimeoutMs ?? 30_000) / 3);
  const timer = setInterval(() => context.heartbeat(), every);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

import type { TestProject } from 'vitest/node';
import { startTestServer } from '../temporal/test-servers.js';

/**
 * One Temporal dev server per vitest worker, shared by the
 * test files that worker runs, each file in a namespace of its own
 * (serverForThisFile in test/temporal/harness.ts). A file that stops or
 * restarts its server, or needs server settings of its own, starts its own
 * (ownServerForThisFile). A server per worker rather than one for all: files
 * running at once do not queue on one server's history shard. Starts them and
 * hands their addresses to the files; returns what stops them.
 */
export async function startSharedServers(project: TestProject): Promise<() => Promise<void>> {
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  const started = await Promise.allSettled(Array.from({ length: workers }, () => startTestServer()));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    // The ones that did start are stopped before the failure is told.
    await Promise.all(servers.map(({ server }) => server.stop()));
    throw failed.reason;
  }
  project.provide(
    'temporalServers',
    servers.map(({ server }) => server.address),
  );
  return async () => {
    await Promise.all(servers.map(({ server }) => server.stop()));
  };
}

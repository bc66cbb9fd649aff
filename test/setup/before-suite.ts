import type { TestProject } from 'vitest/node';
import { makeFixturesDir } from './fixtures-dir.js';
import { warmOnlineCache } from './online-cache.js';
import { installS3Server } from './s3-server-install.js';
import { startSharedServers } from './temporal-servers.js';

/**
 * The suite's global set-up, its slow parts side by side: the S3 server's
 * install (a child process) runs while the Temporal dev servers start and this
 * thread then solves the online-optimum cache, so on a fresh machine the
 * install takes the core the solve leaves. Returns what undoes it after the suite.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const removeFixtures = makeFixturesDir(project);
  const installing = installS3Server();
  let stopServers: (() => Promise<void>) | undefined;
  try {
    // Started before the solve, which holds this thread: the servers come up while it runs.
    stopServers = await startSharedServers(project);
    await warmOnlineCache();
    await installing;
  } catch (error) {
    await installing.catch(() => undefined);
    await stopServers?.();
    removeFixtures();
    throw error;
  }
  const stop = stopServers;
  return async () => {
    await stop();
    removeFixtures();
  };
}

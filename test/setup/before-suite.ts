import type { TestProject } from 'vitest/node';
import { makeFixturesDir } from './fixtures-dir.js';
import { warmOnlineCache } from './online-cache.js';
import { installS3Server } from './s3-server-install.js';
import { startSharedServers } from './temporal-servers.js';

/**
 * The suite's global set-up. The S3 server's install (a child process) runs
 * while the Temporal servers start and then while this thread solves the
 * online-optimum cache, so on a fresh machine the install takes the core the
 * solve leaves. Returns what undoes it all after the suite; on a failure,
 * undoes it before throwing.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const removeFixtures = makeFixturesDir(project);
  // Its failure is held, not thrown, until what else was started is stopped.
  const installing = installS3Server().then(
    () => null,
    (error: unknown) => ({ error }),
  );
  let stopServers: (() => Promise<void>) | undefined;
  try {
    stopServers = await startSharedServers(project);
    await warmOnlineCache();
    const failed = await installing;
    if (failed) throw failed.error;
  } catch (error) {
    await installing;
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

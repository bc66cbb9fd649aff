import type { TestProject } from 'vitest/node';
import { makeFixturesDir } from './fixtures-dir.js';
import { warmOnlineCache } from './online-cache.js';
import { installS3Server } from './s3-server-install.js';
import { startSharedServers } from './temporal-servers.js';

/** A child's outcome, held until what else was started is stopped. */
const held = (work: Promise<void>) =>
  work.then(
    () => null,
    (error: unknown) => ({ error }),
  );

/**
 * The suite's global set-up. The S3 server's install (a child process) runs
 * while the Temporal servers start; the online-optimum cache's warm-up (a
 * child process too) goes on while the test files run, and the teardown waits
 * for it and fails the suite if it failed. Returns what undoes it all after
 * the suite; on a failure, undoes it before throwing.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const removeFixtures = makeFixturesDir(project);
  const installing = held(installS3Server());
  const warmUp = warmOnlineCache();
  const warming = held(warmUp.done);
  let stopServers: (() => Promise<void>) | undefined;
  try {
    stopServers = await startSharedServers(project);
    const failed = await installing;
    if (failed) throw failed.error;
  } catch (error) {
    warmUp.stop();
    await Promise.all([installing, warming]);
    await stopServers?.();
    removeFixtures();
    throw error;
  }
  const stop = stopServers;
  return async () => {
    const failed = await warming;
    await stop();
    removeFixtures();
    if (failed) throw failed.error;
  };
}

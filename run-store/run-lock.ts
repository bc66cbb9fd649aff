import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { describeHolder, LockContendedError, tryLock, type FileLock } from './file-lock.js';

/**
 * `run.lock`: a run directory is used by one `run` or `sweep` at a time (a
 * second one would stop the first one's embedded server). The lock names its
 * holder and is taken over when its process is gone (file-lock.ts).
 */
export const runLockPath = (runDir: string) => join(runDir, 'run.lock');

/** The run directory is in use: one line naming the holder (the CLI exits 2). */
export class RunLockedError extends InputError {}

/** release() removes the lock, and the run directory too if this lock created it and it is still empty. */
export type RunLock = FileLock;

/**
 * Takes the run directory's lock (creating the directory if needed), or
 * throws RunLockedError naming the holder. A stale lock — its process gone on
 * this host, or the file damaged — is taken over, and `note` told so.
 */
export function acquireRunLock(runDir: string, note: (line: string) => void): RunLock {
  const newDirectory = !existsSync(runDir);
  mkdirSync(runDir, { recursive: true });
  const path = runLockPath(runDir);
  let taken: ReturnType<typeof tryLock>;
  try {
    taken = tryLock(path, runDir, note, {
      onSignals: true,
      cleanUp: () => {
        if (newDirectory) rmdirSync(runDir); // only if empty: a run that never started leaves nothing behind
      },
    });
  } catch (error) {
    if (error instanceof LockContendedError) throw new RunLockedError(error.message);
    throw error;
  }
  if ('holder' in taken) {
    throw new RunLockedError(
      `${runDir} is in use by ${describeHolder(taken.holder)} (${path}); wait for it to finish, or remove that file if the process is gone`,
    );
  }
  return taken.lock;
}

import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';

/**
 * `run.lock`: a run directory is used by one `run` or `sweep` at a time (a
 * second one would stop the first one's embedded server). The lock file is
 * created exclusively and names its holder; it is removed when the command
 * ends, on an error and on SIGINT, SIGTERM and SIGHUP alike. A lock whose
 * process is gone (on this host) is stale and taken over, with a note.
 */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
  /** The holder's start time in clock ticks after boot (Linux), so a reused pid is not taken for the holder. */
  readonly started?: number;
}

export const runLockPath = (runDir: string) => join(runDir, 'run.lock');

/** The run directory is in use: one line naming the holder (the CLI exits 2). */
export class RunLockedError extends InputError {}

export interface RunLock {
  readonly path: string;
  /** Removes the lock (idempotent), and the run directory too if this lock created it and it is still empty. */
  release(): void;
}

/** A process's state letter and start time in clock ticks after boot, from /proc (Linux); undefined elsewhere or if it is gone. */
function processStat(pid: number): { state: string; started: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from field 3 (state) on
    const started = Number(fields[19]); // field 22
    return Number.isFinite(started) ? { state: fields[0] ?? '', started } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the holder's process still runs (only knowable on its own host; elsewhere it is assumed to). */
function holderAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = processStat(holder.pid);
  if (stat?.state === 'Z') return false; // exited, not yet reaped
  return holder.started === undefined || stat === undefined || stat.started === holder.started;
}

function readHolder(path: string): { text: string; holder: LockHolder | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    return { text, holder: Number.isInteger(holder.pid) && typeof holder.host === 'string' ? holder : undefined };
  } catch {
    return { text, holder: undefined }; // damaged (it is always written whole)
  }
}

const describeHolder = (holder: LockHolder) => `pid ${holder.pid} on host ${holder.host} since ${holder.since}`;

/**
 * Creates the lock file, whole, if there is none; false if there is one. It is
 * written to a file of its own first and linked into place (atomic, and
 * refused if the lock exists), so no reader ever sees it half written; where
 * the file system has no hard links, it is created exclusively (O_EXCL).
 */
function create(path: string, content: string): boolean {
  const own = `${path}.${process.pid}.new`;
  writeFileSync(own, content);
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
  } finally {
    unlinkSync(own);
  }
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Moves a stale lock aside, unless another command took it over in the
 * meantime: the file moved aside is checked to be the stale one, and put back
 * if it is not. True if the lock was removed.
 */
function removeStale(path: string, staleText: string): boolean {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // A third command holds the lock now; the one moved aside is lost, and its holder will find its lock gone.
    }
  }
  unlinkSync(aside);
  return moved === staleText;
}

const releases = new Set<() => void>();
let exitHooked = false;

/** Releases every lock of this process before it exits, and before a terminating signal takes it down. */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const releaseAll = () => {
    for (const release of [...releases]) release();
  };
  process.once('exit', releaseAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      releaseAll();
      // Then die of the signal as before: nothing else in this process handles it.
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * Takes the run directory's lock (creating the directory if needed), or
 * throws RunLockedError naming the holder. A stale lock — its process gone on
 * this host, or the file damaged — is taken over, and `note` told so.
 */
export function acquireRunLock(runDir: string, note: (line: string) => void): RunLock {
  const newDirectory = !existsSync(runDir);
  mkdirSync(runDir, { recursive: true });
  const path = runLockPath(runDir);
  const own = processStat(process.pid);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), ...(own && { started: own.started }) };
  const content = `${JSON.stringify(me)}\n`;
  const tryCreate = (): boolean => {
    try {
      return create(path, content);
    } catch (error) {
      const errno = error as NodeJS.ErrnoException;
      if (errno.path?.startsWith(`${path}.`)) errno.path = path; // name the lock, not the file it is written through
      throw error;
    }
  };
  for (let tries = 0; !tryCreate(); tries++) {
    const found = readHolder(path);
    if (!found) continue; // released in the meantime
    const { text, holder } = found;
    if (holder && holderAlive(holder)) {
      throw new RunLockedError(
        `${runDir} is in use by ${describeHolder(holder)} (${path}); wait for it to finish, or remove that file if the process is gone`,
      );
    }
    if (tries >= 5) throw new RunLockedError(`${path}: cannot take over a stale lock (other commands keep taking it)`);
    if (removeStale(path, text)) {
      note(
        holder
          ? `took over the stale lock of ${runDir}: ${describeHolder(holder)}, which is gone`
          : `took over the unreadable lock of ${runDir} (${path})`,
      );
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    releases.delete(release);
    try {
      const found = readHolder(path);
      if (found?.text === content) unlinkSync(path);
      if (newDirectory) rmdirSync(runDir); // only if empty: a run that never started leaves nothing behind
    } catch {
      // Already gone, or the directory holds a run.
    }
  };
  releases.add(release);
  hookExit();
  return { path, release };
}

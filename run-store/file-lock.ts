import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { InputError } from '../core/errors.js';

/**
 * The run store's one lock: a file that names its holder, created exclusively
 * and whole, renewed by its holder (its modification time, every
 * RENEW_EVERY_MS) and removed by it (when done, at exit, and on SIGINT,
 * SIGTERM and SIGHUP where asked). A lock is stale, and taken over with a
 * note, when its file is damaged; when its holder is on this host and its
 * process is gone (its pid and start time); or when its holder is on another
 * host (whose processes cannot be asked) and it has not been renewed for
 * STALE_AFTER_MS. The run directory's lock (run-lock.ts), the stream values'
 * solving lock (analysis/stream-values-cache.ts) and the repair of a torn line
 * (json-files.ts) take it.
 */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
  /** The holder's start time in clock ticks after boot (Linux), so a reused pid is not taken for the holder. */
  readonly started?: number;
}

/** How often a holder renews its lock. */
const RENEW_EVERY_MS = 10_000;
/** A lock of another host's holder not renewed for this long was left by a process that is gone (six renewals missed). */
export const STALE_AFTER_MS = 60_000;

/** A stale lock that other processes keep taking over first. */
export class LockContendedError extends InputError {}

export interface FileLock {
  readonly path: string;
  /** Removes the lock (idempotent). */
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

/** Whether the holder still holds the lock at `path`: its process runs (on this host), or it renewed the lock lately (elsewhere). */
function holderAlive(holder: LockHolder, path: string): boolean {
  if (holder.host !== hostname()) return renewedWithin(path, STALE_AFTER_MS);
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

/** Whether the lock file at `path` was renewed (or created) within the last `ms`. */
function renewedWithin(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < ms;
  } catch {
    return false;
  }
}

/** The holder of the lock at `path`, if it still holds it (holderAlive). */
export function liveHolder(path: string): LockHolder | undefined {
  const holder = readHolder(path)?.holder;
  return holder && holderAlive(holder, path) ? holder : undefined;
}

export const describeHolder = (holder: LockHolder) => `pid ${holder.pid} on host ${holder.host} since ${holder.since}`;

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
let signalsHooked = false;

const releaseAll = () => {
  for (const release of [...releases]) release();
};

/** Releases every lock of this process before it exits. */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', releaseAll);
}

/** Releases every lock of this process before a terminating signal takes it down (a command's main thread only). */
function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      releaseAll();
      // Then die of the signal as before: nothing else in the command handles it.
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

export interface LockOptions {
  /** Runs after the lock's own release. */
  readonly cleanUp?: () => void;
  /** Also release on SIGINT, SIGTERM and SIGHUP, then die of the signal (for a command that holds the lock for its life). */
  readonly onSignals?: boolean;
}

/**
 * Takes the lock at `path`, or returns its live holder. A stale lock is taken
 * over and `note` told so (`what` names what it guards).
 */
export function tryLock(
  path: string,
  what: string,
  note: (line: string) => void,
  options: LockOptions = {},
): { lock: FileLock } | { holder: LockHolder } {
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
    if (holder && holderAlive(holder, path)) return { holder };
    if (tries >= 5) throw new LockContendedError(`${path}: cannot take over a stale lock (other commands keep taking it)`);
    if (removeStale(path, text)) {
      note(
        holder
          ? `took over the stale lock of ${what}: ${describeHolder(holder)}, ${holder.host === hostname() ? 'which is gone' : `not renewed for ${STALE_AFTER_MS / 1000} s`}`
          : `took over the unreadable lock of ${what} (${path})`,
      );
    }
  }
  let held = true;
  const renewal = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // Gone (taken over after this process stalled): its release says nothing either.
    }
  }, RENEW_EVERY_MS);
  renewal.unref();
  const release = () => {
    if (!held) return;
    held = false;
    clearInterval(renewal);
    releases.delete(release);
    try {
      const found = readHolder(path);
      if (found?.text === content) unlinkSync(path);
      options.cleanUp?.();
    } catch {
      // Already gone, or what cleanUp removes is in use.
    }
  };
  releases.add(release);
  hookExit();
  if (options.onSignals) hookSignals();
  return { lock: { path, release } };
}

import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeHolder, tryLock, type FileLock } from '../run-store/file-lock.js';
import { readJsonIfExists, writeJsonAtomic } from '../run-store/json-files.js';

/*
 * Values a policy reaches on a session's stream, computed from the stream
 * alone and kept on disk: policy/optimal's net (the online Score's
 * denominator, analysis/online-optimum.ts) and what policy/bayes collects (the
 * competence gate's comparator, analysis/bayes-comparator.ts). Each
 * needs a table that takes seconds to minutes to solve, so values are kept one
 * file per kind and setting, keyed by the class sequence: a stream already
 * seen is never solved again, by this process or any other. One process at a
 * time solves a setting's table (a lock beside its file): another that needs
 * it meanwhile waits, then reads what the first wrote; past `solvingWaitMs`
 * (a holder whose thread died in a process that lives on, or one on another
 * host) it solves the table itself, as it would without the lock.
 */

export interface CacheOptions {
  /** Where the values are kept; null keeps nothing (every call solves). */
  readonly cacheDir: string | null;
  /** Told before a table is solved (it may take minutes), and of a cache file it ignores. */
  readonly say?: (line: string) => void;
  /** How long to wait for another process's solve of the same table before solving it here (default 5 minutes). */
  readonly solvingWaitMs?: number;
}

/** ALLOCBENCH_CACHE_DIR, else $XDG_CACHE_HOME/allocbench, else ~/.cache/allocbench. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ALLOCBENCH_CACHE_DIR) return env.ALLOCBENCH_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'allocbench');
}

/** A cache file's values; an unreadable or malformed one counts as empty (it is rewritten). */
async function readCache(path: string, say: (line: string) => void): Promise<Map<string, number>> {
  try {
    const stored = await readJsonIfExists<unknown>(path);
    if (stored === undefined) return new Map();
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new Error('not an object');
    const entries = Object.entries(stored);
    if (entries.some(([classes, value]) => !/^[0-9a-z]+$/.test(classes) || typeof value !== 'number' || !Number.isFinite(value))) {
      throw new Error('not a map from class sequences to numbers');
    }
    return new Map(entries as [string, number][]);
  } catch (error) {
    say(`ignoring the cache ${path} (${(error as Error).message.split('\n')[0]}); it is rewritten`);
    return new Map();
  }
}

/**
 * The value on each of `streams` (class sequences, one base-36 character per
 * item) for one kind of value at one setting (`file`: `<kind>/<setting>`, the
 * kind carrying a version bumped when its values change): read from the
 * cache where there, else computed by `solve` on the streams missing, which
 * are then added to the cache. `solve`'s error is the caller's (nothing is written).
 */
export async function valuesPerStream(
  file: string,
  streams: Iterable<string>,
  solve: (missing: ReadonlySet<string>) => Iterable<readonly [string, number]>,
  options: CacheOptions,
): Promise<ReadonlyMap<string, number>> {
  const say = options.say ?? (() => {});
  const wanted = [...streams];
  const missingFrom = (values: ReadonlyMap<string, number>) => new Set(wanted.filter((classes) => !values.has(classes)));
  if (options.cacheDir === null) return new Map(solve(new Set(wanted)));
  const path = join(options.cacheDir, `${file}.json`);
  const cached = await readCache(path, say);
  if (missingFrom(cached).size === 0) return cached;
  const lock = await solvingLock(path, options.solvingWaitMs ?? 5 * 60_000, say);
  try {
    const known = await readCache(path, say); // with what another process solved while this one waited
    const missing = missingFrom(known);
    if (missing.size === 0) return known;
    for (const [classes, value] of solve(missing)) known.set(classes, value);
    // Read again before writing: a process that stopped waiting for the lock writes without it.
    await writeJsonAtomic(path, Object.fromEntries([...(await readCache(path, say)), ...known]));
    return known;
  } finally {
    lock?.release();
  }
}

/** How often a process waiting for another's solve looks again. */
const SOLVING_POLL_MS = 250;

/**
 * The lock on solving the table of the cache file at `path`, waited for while
 * another process holds it; undefined once the wait passes `waitMs`.
 */
async function solvingLock(path: string, waitMs: number, say: (line: string) => void): Promise<FileLock | undefined> {
  await mkdir(dirname(path), { recursive: true });
  const lockPath = `${path}.solving`;
  for (let waited = 0; ; waited += SOLVING_POLL_MS) {
    const taken = tryLock(lockPath, path, say);
    if ('lock' in taken) return taken.lock;
    if (waited === 0) say(`waiting for ${describeHolder(taken.holder)}, which is solving the same table (${lockPath})`);
    if (waited >= waitMs) {
      say(`solving the table without waiting longer for ${describeHolder(taken.holder)} (${lockPath})`);
      return undefined;
    }
    await sleep(SOLVING_POLL_MS);
  }
}

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

const WAIT_MS = 10 * 60_000;

/**
 * A fixture built once per test run, by whichever test file asks for it first,
 * and then read by every file that asks, in whatever process: its files live
 * under `dir` (read-only to its readers: a test that changes them works on a
 * copy) and `build` returns what readers need to check (exit statuses and
 * output: a reader asserts on them as it did when it built the fixture itself).
 * Files asking at once wait for the one building it.
 */
export async function sharedFixture<T>(name: string, build: (dir: string) => T | Promise<T>): Promise<{ dir: string; value: T }> {
  const dir = join(inject('fixturesDir'), name);
  const done = join(`${dir}.done.json`);
  let building = false;
  try {
    mkdirSync(`${dir}.lock`);
    building = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (building) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(done, JSON.stringify({ value: await build(dir) }));
    } catch (error) {
      writeFileSync(done, JSON.stringify({ error: `building the shared fixture ${name} failed: ${String(error)}` }));
      throw error;
    }
  }
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(done)) {
    if (Date.now() > deadline) throw new Error(`the shared fixture ${name} was not built within ${WAIT_MS / 60_000} minutes`);
    await sleep(200);
  }
  const result = JSON.parse(readFileSync(done, 'utf8')) as { value: T } | { error: string };
  if ('error' in result) throw new Error(result.error);
  return { dir, value: result.value };
}

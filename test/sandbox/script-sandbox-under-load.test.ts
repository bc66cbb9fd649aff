import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { afterAll, expect, it } from 'vitest';
import { ScriptSandbox } from '../../activities/sandbox/script-sandbox.js';
import { BUSY, busyLoop, stepsPerCpuMs } from './busy-loop.js';

/*
 * The sandbox's limit beside more busy processes than cores. This file runs alone, after every other
 * (vitest.config.ts): its processes would slow the other files for its duration.
 */

/** One more CPU-bound process than there are cores, at this process's priority. */
const startSpinners = (): ChildProcess[] =>
  Array.from({ length: availableParallelism() + 1 }, () =>
    spawn(process.execPath, ['-e', "process.stdout.write('spinning'); for (;;) {}"], { stdio: ['ignore', 'pipe', 'ignore'] }),
  );
const spinning = (spinners: ChildProcess[]) =>
  Promise.all(spinners.map((spinner) => once(spinner.stdout as NonNullable<ChildProcess['stdout']>, 'data')));

const sandbox = new ScriptSandbox();
afterAll(() => sandbox.dispose());

it('counts the limit in CPU time: a run using about 60% of it returns beside more busy processes than cores', async () => {
  const limits = { timeoutMs: 1000, memoryMb: 32 };
  const n = Math.round(0.6 * limits.timeoutMs * stepsPerCpuMs());
  const value = busyLoop(n);
  const spinners = startSpinners();
  try {
    await spinning(spinners);
    const outcome = await sandbox.run(BUSY, { n }, limits);
    expect(outcome).toMatchObject({ ok: true, value });
    // About 60%, as calibrated here: CPU time, unlike the wall clock, does not stretch with the machine's load.
    expect(outcome.cpuMs).toBeGreaterThan(0.3 * limits.timeoutMs);
    expect(outcome.cpuMs).toBeLessThan(limits.timeoutMs);
  } finally {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  }
});

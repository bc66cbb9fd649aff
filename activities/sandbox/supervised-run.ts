import { performance } from 'node:perf_hooks';
import type { RunResult, SandboxIsolate } from './sandbox-isolate.js';
import { WALL_GUARD_FACTOR, wallGuardMs } from '../../core/scripts/script-settings.js';
import type { SandboxLimits, TimeLimit } from '../../core/scripts/script-outcome.js';

/** How often the clocks are read while a script runs: a run stops at most about this long past a limit. */
const CHECK_MS = 5;

/** A run's result and its two clocks, in ms. */
export interface SupervisedRun {
  readonly result: RunResult;
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * This process's CPU time: the isolate's thread and V8's helpers for its heap.
 * The isolate process runs one script at a time and nothing else, so this is the run's.
 */
function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs a script on the isolate, killing it once the run has used its CPU time
 * limit, whatever else the machine runs, or once the wall-clock guard passes
 * (a promise that never settles, a run starved of CPU), or when V8 loses the
 * isolate. A killed isolate's thread may still be busy in an operation that
 * ignores termination: the caller must end this process after a stopped run.
 */
export async function superviseRun(
  isolate: SandboxIsolate,
  code: string,
  inputsJson: string,
  limits: SandboxLimits,
): Promise<SupervisedRun> {
  const startedCpu = processCpuMs();
  const started = performance.now();
  const guardMs = wallGuardMs(limits.timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const limitPassed = new Promise<TimeLimit>((resolve) => {
    timer = setInterval(() => {
      if (processCpuMs() - startedCpu >= limits.timeoutMs) resolve('cpu');
      else if (performance.now() - started >= guardMs) resolve('wall');
    }, CHECK_MS);
  });
  const settled = isolate.execute(code, inputsJson).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([settled, limitPassed, isolate.lost.then(() => 'lost' as const)]);
  clearInterval(timer);
  const clocks = { ms: performance.now() - started, cpuMs: processCpuMs() - startedCpu };
  if (first === 'cpu' || first === 'wall') {
    const result = isolate.failed() === 'memory' ? memoryFailure(limits) : timeout(first, limits, guardMs);
    isolate.kill();
    return { result, ...clocks };
  }
  if (first === 'lost') return { result: memoryFailure(limits), ...clocks };
  if ('result' in first) return { result: first.result, ...clocks };
  if (isolate.failed() === 'memory') return { result: memoryFailure(limits), ...clocks };
  throw first.error; // the sandbox's own bug, not a script's outcome
}

function timeout(limit: TimeLimit, { timeoutMs }: SandboxLimits, guardMs: number): RunResult {
  const error =
    limit === 'cpu'
      ? `ran past the ${timeoutMs} ms CPU time limit`
      : `stopped by the wall-clock guard at ${guardMs} ms (${WALL_GUARD_FACTOR}x the ${timeoutMs} ms CPU time limit): waiting on something that never comes, or starved of CPU`;
  return { ok: false, kind: 'timeout', limit, error, logs: '' };
}

const memoryFailure = ({ memoryMb }: SandboxLimits): RunResult => ({
  ok: false,
  kind: 'memory',
  error: `exceeded the ${memoryMb} MB memory limit`,
  logs: '',
});

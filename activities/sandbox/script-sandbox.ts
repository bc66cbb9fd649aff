import { performance } from 'node:perf_hooks';
import { ERROR_LIMIT } from './isolate-prelude.js';
import { SandboxIsolate, type RunResult } from './sandbox-isolate.js';
import { DEFAULT_SANDBOX_LIMITS, SANDBOX_LIMIT_RANGES, type SandboxLimits, type ScriptOutcome } from '../../core/scripts/script-outcome.js';

/** Past the time limit the host waits this long for isolated-vm's own timeout, then disposes the isolate. */
const WALL_GRACE_MS = 25;
/** A warm isolate whose heap is above this share of its limit after a run is replaced. */
const HEAP_REUSE_SHARE = 0.5;

export interface ScriptSandboxOptions {
  /** Reuse isolates between runs, each run in a fresh context (default); false: one isolate per run. */
  readonly warm?: boolean;
  /** How many runs at once, each in its own isolate; further calls queue. Default 1. */
  readonly isolates?: number;
}

/**
 * Runs model-written scripts' solve(inputs) in isolated-vm isolates with only
 * JavaScript's builtins: every failure, hostile or not, is a ScriptOutcome.
 * The CPU limit is isolated-vm's timeout; a host timer disposes the isolate
 * for what that misses (a promise that never settles). isolated-vm's memory
 * limit is soft, so a determined script can still take the process down: run
 * this in a process of its own.
 */
export class ScriptSandbox {
  private readonly warm: boolean;
  private readonly idle: SandboxIsolate[] = [];
  private readonly queue: (() => void)[] = [];
  private free: number;
  private abandoned = 0;
  private disposed = false;

  constructor({ warm = true, isolates = 1 }: ScriptSandboxOptions = {}) {
    if (!Number.isSafeInteger(isolates) || isolates < 1)
      throw new RangeError(`ScriptSandbox: isolates must be a positive integer, got ${isolates}`);
    this.warm = warm;
    this.free = isolates;
  }

  async run(code: string, inputs: unknown, limits: Partial<SandboxLimits> = {}): Promise<ScriptOutcome> {
    const checked = checkLimits(limits);
    const inputsJson = JSON.stringify(inputs) as string | undefined;
    if (inputsJson === undefined) throw new TypeError('ScriptSandbox.run: inputs must be JSON');
    await this.acquire();
    const isolate = this.takeIsolate(checked.memoryMb);
    let keep = false;
    try {
      const started = performance.now();
      const result = await this.supervise(isolate, code, inputsJson, started, checked);
      const ms = performance.now() - started;
      keep = this.warm && !stopped(result) && (await this.heapFits(isolate));
      return stamp(result, ms);
    } finally {
      if (keep && !this.disposed) this.idle.push(isolate);
      else isolate.dispose();
      this.release();
    }
  }

  /**
   * Isolates abandoned at the wall-clock limit while their thread still ran:
   * an operation that ignores termination (a huge BigInt's toString) holds it
   * until it ends, and a V8 out-of-memory parks it for good. While this is
   * above zero the process cannot exit cleanly; a worker process should be replaced.
   */
  get runaways(): number {
    return this.abandoned;
  }

  /** Disposes the idle isolates now and busy ones when their run ends; queued and later runs throw. */
  dispose(): void {
    this.disposed = true;
    for (const isolate of this.idle.splice(0)) isolate.dispose();
    for (const wake of this.queue.splice(0)) wake();
  }

  private async supervise(
    isolate: SandboxIsolate,
    code: string,
    inputsJson: string,
    started: number,
    limits: SandboxLimits,
  ): Promise<RunResult> {
    const deadline = started + limits.timeoutMs;
    const settled = isolate.execute(code, inputsJson, deadline).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const wall = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), deadline + WALL_GRACE_MS - performance.now());
    });
    // The wall clock, or V8 losing the isolate, ends the wait for a run that may never settle.
    const first = await Promise.race([settled, wall, isolate.lost.then(() => undefined)]);
    clearTimeout(timer);
    if (first === undefined) {
      const kind = isolate.failed() ?? 'timeout';
      isolate.kill();
      this.abandoned++;
      void settled.then(() => this.abandoned--);
      return failure(kind, limits);
    }
    if ('result' in first) return first.result;
    const kind = isolate.failed(first.error);
    if (kind === undefined) throw first.error; // the sandbox's own bug, not a script's outcome
    return failure(kind, limits);
  }

  private async acquire(): Promise<void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    if (this.disposed) {
      this.release();
      throw new Error('ScriptSandbox: disposed');
    }
  }

  /** Hands the slot to the next queued run, if any. */
  private release(): void {
    const wake = this.queue.shift();
    if (wake) wake();
    else this.free++;
  }

  /** An idle isolate with this heap limit, else a new one (replacing an idle one, so the count stays within the pool's size). */
  private takeIsolate(memoryMb: number): SandboxIsolate {
    const index = this.idle.findIndex((isolate) => isolate.memoryMb === memoryMb);
    if (index >= 0) return this.idle.splice(index, 1)[0] as SandboxIsolate;
    this.idle.pop()?.dispose();
    return new SandboxIsolate(memoryMb);
  }

  private async heapFits(isolate: SandboxIsolate): Promise<boolean> {
    if (!isolate.usable) return false;
    try {
      return (await isolate.heapBytes()) < isolate.memoryMb * 1024 * 1024 * HEAP_REUSE_SHARE;
    } catch {
      return false; // disposed meanwhile
    }
  }
}

function checkLimits(limits: Partial<SandboxLimits>): SandboxLimits {
  const checked = {
    timeoutMs: limits.timeoutMs ?? DEFAULT_SANDBOX_LIMITS.timeoutMs,
    memoryMb: limits.memoryMb ?? DEFAULT_SANDBOX_LIMITS.memoryMb,
  };
  for (const key of ['timeoutMs', 'memoryMb'] as const) {
    const [min, max] = SANDBOX_LIMIT_RANGES[key];
    if (!Number.isSafeInteger(checked[key]) || checked[key] < min || checked[key] > max) {
      throw new RangeError(`ScriptSandbox: ${key} must be an integer from ${min} to ${max}, got ${checked[key]}`);
    }
  }
  return checked;
}

/** Timeouts and memory failures leave an isolate that is disposed or not worth trusting. */
const stopped = (result: RunResult) => !result.ok && (result.kind === 'timeout' || result.kind === 'memory');

function failure(kind: 'timeout' | 'memory', limits: SandboxLimits): RunResult {
  const error = kind === 'timeout' ? `ran past the ${limits.timeoutMs} ms time limit` : `exceeded the ${limits.memoryMb} MB memory limit`;
  return { ok: false, kind, error, logs: '' };
}

function stamp(result: RunResult, ms: number): ScriptOutcome {
  const rounded = Math.round(ms * 1000) / 1000;
  if (result.ok) return { ...result, ms: rounded };
  const line = result.error.replace(/\s+/g, ' ').trim();
  return { ...result, error: line.length > ERROR_LIMIT ? `${line.slice(0, ERROR_LIMIT - 1)}…` : line, ms: rounded };
}

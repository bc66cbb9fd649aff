import { ERROR_LIMIT } from './isolate-prelude.js';
import { IsolateProcess } from './isolate-process.js';
import type { RunResult } from './sandbox-isolate.js';
import { DEFAULT_SANDBOX_LIMITS, SANDBOX_LIMIT_RANGES, type SandboxLimits, type ScriptOutcome } from '../../core/scripts/script-outcome.js';

export interface ScriptSandboxOptions {
  /** Reuse isolates between runs, each run in a fresh context (default); false: one isolate per run. */
  readonly warm?: boolean;
  /** How many runs at once, each in an isolate process of its own; further calls queue. Default 1. */
  readonly isolates?: number;
}

/**
 * Runs model-written scripts' solve(inputs) in isolated-vm isolates with only
 * JavaScript's builtins: every failure, hostile or not, is a ScriptOutcome.
 * Each isolate lives in a process of its own (IsolateProcess), which stops a
 * run at its CPU time limit or at the wall-clock guard; a process whose run a
 * limit stopped, or V8 lost, is ended, threads and all, and replaced. The
 * isolate's memory limit is soft, and a few V8 fatal errors abort that
 * process: run() then throws, as for any mechanical failure.
 */
export class ScriptSandbox {
  private readonly warm: boolean;
  private readonly idle: IsolateProcess[] = [];
  private readonly queue: (() => void)[] = [];
  private free: number;
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
    try {
      const host = this.takeIdle() ?? (await IsolateProcess.start());
      let keep = false;
      try {
        const { result, ms, cpuMs } = await host.run({ code, inputsJson, limits: checked, warm: this.warm });
        keep = !stopped(result);
        return stamp(result, ms, cpuMs);
      } finally {
        if (keep && !this.disposed) this.idle.push(host);
        else host.kill();
      }
    } finally {
      this.release();
    }
  }

  /** Ends the idle isolate processes now and busy ones when their run ends; queued and later runs throw. */
  dispose(): void {
    this.disposed = true;
    for (const host of this.idle.splice(0)) host.kill();
    for (const wake of this.queue.splice(0)) wake();
  }

  /** An idle isolate process still alive (one killed from outside while idle is dropped). */
  private takeIdle(): IsolateProcess | undefined {
    for (let host = this.idle.pop(); host; host = this.idle.pop()) if (host.alive) return host;
    return undefined;
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

/** Timeouts and memory failures leave an isolate, perhaps a thread still running in it, not worth keeping. */
const stopped = (result: RunResult) => !result.ok && (result.kind === 'timeout' || result.kind === 'memory');

const rounded = (ms: number) => Math.round(ms * 1000) / 1000;

function stamp(result: RunResult, ms: number, cpuMs: number): ScriptOutcome {
  const clocks = { ms: rounded(ms), cpuMs: rounded(cpuMs) };
  if (result.ok) return { ...result, ...clocks };
  const line = result.error.replace(/\s+/g, ' ').trim();
  return { ...result, error: line.length > ERROR_LIMIT ? `${line.slice(0, ERROR_LIMIT - 1)}…` : line, ...clocks };
}

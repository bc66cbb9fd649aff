import { DEFAULT_SCRIPT_SETTINGS, SCRIPT_LIMIT_RANGES } from './script-settings.js';

/** Why a script run failed; every failure is an outcome, never a thrown error. */
export const SCRIPT_ERROR_KINDS = ['compile', 'no-solve', 'throw', 'timeout', 'memory', 'non-serializable', 'output-too-large'] as const;
export type ScriptErrorKind = (typeof SCRIPT_ERROR_KINDS)[number];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Per run: the CPU time it may use, and the isolate's heap limit. */
export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly memoryMb: number;
}

/** The same defaults and ranges as a sweep's `r3` settings. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: DEFAULT_SCRIPT_SETTINGS.timeoutMs,
  memoryMb: DEFAULT_SCRIPT_SETTINGS.memoryMb,
};
export const SANDBOX_LIMIT_RANGES = SCRIPT_LIMIT_RANGES;

/** What stopped a run that timed out: its CPU time, or the wall-clock guard (starved of CPU, or waiting on nothing). */
export type TimeLimit = 'cpu' | 'wall';

/** A run's two clocks: `ms` its wall time, `cpuMs` the CPU time it used (absent in transcripts recorded before it was measured). */
interface RunClocks {
  readonly ms: number;
  readonly cpuMs?: number;
}

/**
 * One run of a script's solve(inputs). `value` is the result as plain JSON
 * (a BigInt anywhere in it becomes its decimal string); `error` is one line;
 * `logs` is what the script printed, capped; a timeout says which limit
 * stopped it (absent in transcripts recorded before the limit was CPU time).
 */
export type ScriptOutcome = RunClocks &
  (
    | { readonly ok: true; readonly value: JsonValue; readonly logs: string }
    | { readonly ok: false; readonly kind: Exclude<ScriptErrorKind, 'timeout'>; readonly error: string; readonly logs: string }
    | { readonly ok: false; readonly kind: 'timeout'; readonly limit?: TimeLimit; readonly error: string; readonly logs: string }
  );

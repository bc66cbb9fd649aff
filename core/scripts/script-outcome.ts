import { DEFAULT_SCRIPT_SETTINGS, SCRIPT_LIMIT_RANGES } from './script-settings.js';

/** Why a script run failed; every failure is an outcome, never a thrown error. */
export const SCRIPT_ERROR_KINDS = ['compile', 'no-solve', 'throw', 'timeout', 'memory', 'non-serializable', 'output-too-large'] as const;
export type ScriptErrorKind = (typeof SCRIPT_ERROR_KINDS)[number];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Per run: wall-clock (and CPU) time, and the isolate's heap limit. */
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

/**
 * One run of a script's solve(inputs). `value` is the result as plain JSON
 * (a BigInt anywhere in it becomes its decimal string); `error` is one line;
 * `logs` is what the script printed, capped; `ms` is the run's wall time.
 */
export type ScriptOutcome =
  | { readonly ok: true; readonly value: JsonValue; readonly ms: number; readonly logs: string }
  | { readonly ok: false; readonly kind: ScriptErrorKind; readonly error: string; readonly ms: number; readonly logs: string };

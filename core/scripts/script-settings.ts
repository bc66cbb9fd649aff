import { z } from 'zod';

/**
 * How an R3 session runs: whether it stops right after the last write (as the
 * paper's sessions did, B.4) or plays to the end of the stream, and the
 * sandbox's limits for each script run.
 */
/** Accepted sandbox limits, inclusive (isolated-vm refuses a heap under 8 MB). */
export const SCRIPT_LIMIT_RANGES = { timeoutMs: [10, 60_000], memoryMb: [8, 4096] } as const;

/**
 * The wall-clock guard, for runs that wait without computing: this many times
 * the CPU time limit, so a run working at its full CPU limit meets it only when
 * it gets less than a tenth of a core; and at most WALL_GUARD_MAX_MS, well
 * within the sandbox activity's two minutes.
 */
export const WALL_GUARD_FACTOR = 10;
export const WALL_GUARD_MAX_MS = 100_000;
export const wallGuardMs = (timeoutMs: number): number => Math.min(WALL_GUARD_FACTOR * timeoutMs, WALL_GUARD_MAX_MS);

const limit = ([min, max]: readonly [number, number]) => z.number().int().min(min).max(max);

export const scriptSettingsSchema = z.strictObject({
  end: z
    .enum(['budget-exhausted', 'stream-end'])
    .default('budget-exhausted')
    .describe('stop after the last write, or play the whole stream'),
  timeoutMs: limit(SCRIPT_LIMIT_RANGES.timeoutMs)
    .default(1000)
    .describe(`CPU time limit of one script run (a wall-clock guard at ${WALL_GUARD_FACTOR} times it stops one that waits)`),
  memoryMb: limit(SCRIPT_LIMIT_RANGES.memoryMb).default(64).describe('heap limit of one script run'),
});

export type ScriptSettings = z.output<typeof scriptSettingsSchema>;

export const DEFAULT_SCRIPT_SETTINGS: ScriptSettings = scriptSettingsSchema.parse({});

import { z } from 'zod';

/**
 * How an R3 session runs: whether it stops right after the last write (as the
 * paper's sessions did, B.4) or plays to the end of the stream, and the
 * sandbox's limits for each script run.
 */
/** Accepted sandbox limits, inclusive (isolated-vm refuses a heap under 8 MB). */
export const SCRIPT_LIMIT_RANGES = { timeoutMs: [10, 60_000], memoryMb: [8, 4096] } as const;

const limit = ([min, max]: readonly [number, number]) => z.number().int().min(min).max(max);

export const scriptSettingsSchema = z.strictObject({
  end: z
    .enum(['budget-exhausted', 'stream-end'])
    .default('budget-exhausted')
    .describe('stop after the last write, or play the whole stream'),
  timeoutMs: limit(SCRIPT_LIMIT_RANGES.timeoutMs).default(1000).describe('CPU and wall-clock limit of one script run'),
  memoryMb: limit(SCRIPT_LIMIT_RANGES.memoryMb).default(64).describe('heap limit of one script run'),
});

export type ScriptSettings = z.output<typeof scriptSettingsSchema>;

export const DEFAULT_SCRIPT_SETTINGS: ScriptSettings = scriptSettingsSchema.parse({});

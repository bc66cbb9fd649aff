import { z } from 'zod';
import { FAMILY_NAMES } from '../families/family.js';
import { parseOrThrow } from '../validation.js';

/** The paper's evaluation panel: seeds 2000–2023. */
export const PANEL_SEEDS = { first: 2000, last: 2023 } as const;

/** The panel's seeds, in order. */
export const panelSeeds = (): number[] => Array.from({ length: PANEL_SEEDS.last - PANEL_SEEDS.first + 1 }, (_, i) => PANEL_SEEDS.first + i);

const FAMILY_COUNT = FAMILY_NAMES.length;

/** Generator settings (paper §3.2 and Appendix B.1); every field has the paper's default. */
export const streamConfigSchema = z
  .strictObject({
    length: z.number().int().min(1).max(100_000).default(60).describe('T: items per stream'),
    budget: z.number().int().min(1).max(FAMILY_COUNT).default(3).describe('B: commitments allowed'),
    hotCount: z
      .number()
      .int()
      .min(1)
      .max(FAMILY_COUNT - 1)
      .default(3)
      .describe('families in the hot role; the rest are traps'),
    hotMass: z.number().gt(0).lt(1).default(0.85).describe('probability mass shared equally by the hot families'),
    magnitude: z.number().int().min(10).max(10_000).default(100).describe('parameter magnitude of the instances'),
  })
  .refine((config) => config.budget <= config.length, {
    message: 'budget must not exceed the stream length',
    path: ['budget'],
  });

export type StreamConfig = z.output<typeof streamConfigSchema>;

export const DEFAULT_STREAM_CONFIG: StreamConfig = streamConfigSchema.parse({});

/** `fieldName` renames a config field in error messages (the CLI names its flags). */
export function parseStreamConfig(raw: unknown, fieldName?: (field: string) => string): StreamConfig {
  return parseOrThrow(streamConfigSchema, raw, 'stream config', fieldName);
}

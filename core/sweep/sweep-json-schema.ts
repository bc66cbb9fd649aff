import { z } from 'zod';
import { sweepConfigSchema } from './sweep-config.js';

/** Where the shipped sweep files find the schema (`$schema`), relative to the repository. */
export const SWEEP_SCHEMA_FILE = 'config/sweep.schema.json';

/**
 * The JSON Schema of a sweep file, generated from the zod schema that
 * validates it (what a file may say, before defaults and transforms), for
 * editors to complete and check sweep files with.
 */
export function sweepJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(sweepConfigSchema, { io: 'input' }),
    title: 'AllocBench sweep',
    description: 'A sweep file of `allocbench sweep`: the cross product of its lists (or of each arm), one durable session each.',
  };
}

/** The schema as the shipped file holds it. */
export const sweepJsonSchemaText = (): string => `${JSON.stringify(sweepJsonSchema(), null, 2)}\n`;

import type { Command } from 'commander';
import { MAX_SEED } from '../core/random/rng.js';
import { parseStreamConfig, type StreamConfig } from '../core/stream/stream-config.js';
import { integerIn, numberIn } from './options.js';

export interface StreamFlags {
  length?: number;
  budget?: number;
  hotCount?: number;
  hotMass?: number;
  magnitude?: number;
}

/** The generator's settings as flags; unset flags keep the paper's defaults. */
export function addStreamOptions(command: Command): Command {
  return command
    .option('--length <T>', 'items per stream (default 60)', integerIn(1, 100_000))
    .option('--budget <B>', 'budget B; a trap is forced within the first B items (default 3)', integerIn(1, 8))
    .option('--hot-count <H>', 'families in the hot role (default 3)', integerIn(1, 7))
    .option('--hot-mass <P>', 'probability mass of the hot families (default 0.85)', numberIn(0, 1, { exclusiveMin: true }))
    .option('--magnitude <M>', 'instance magnitude (default 100; 1000 for the hard check)', integerIn(10, 10_000));
}

export function streamConfigFrom(flags: StreamFlags): StreamConfig {
  const { length, budget, hotCount, hotMass, magnitude } = flags;
  const given = Object.entries({ length, budget, hotCount, hotMass, magnitude }).filter(([, v]) => v !== undefined);
  return parseStreamConfig(Object.fromEntries(given), (field) => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
}

export const seedOption = integerIn(0, MAX_SEED);

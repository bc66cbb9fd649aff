import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../../core/errors.js';
import { isObjectStoreLocation } from '../../run-store/run-location.js';
import { withPrices } from '../prices.js';
import { validateSweep } from '../sweep-validation.js';
import { executeSweep } from './execute-sweep.js';
import { addExecutionOptions, type ExecutionFlags } from './sweep-options.js';

async function readSweepFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new InputError(`${path}: cannot read the sweep file`);
  }
  try {
    return parseYaml(text); // YAML is a superset of JSON
  } catch (error) {
    throw new InputError(`${path}: not valid YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
}

export function registerSweep(program: Command): void {
  addExecutionOptions(
    program
      .command('sweep')
      .description('run (or resume) a sweep described by a YAML or JSON file')
      .argument(
        '<file>',
        'sweep file: name, models (or agent: {kind: split, planner, builder}), rungs, seeds, budgets, charges, reskins, announceN, ...',
      ),
  ).action(async (file: string, flags: ExecutionFlags) => {
    const raw = await readSweepFile(file);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`${file}: a sweep is a mapping of settings`);
    const config = validateSweep(withPrices(raw as Record<string, unknown>, flags.prices), file, (index) => `${file}.models.${index}`);
    // A streams directory and a recorded run named in a sweep file are relative to the file.
    const relative = (path: string) => (isObjectStoreLocation(path) ? path : resolve(dirname(file), path));
    await executeSweep(
      {
        ...config,
        ...(config.streams !== null && { streams: resolve(dirname(file), config.streams) }),
        ...(config.replay && { replay: { ...config.replay, from: relative(config.replay.from) } }),
      },
      flags,
    );
  });
}

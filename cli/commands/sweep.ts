import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../../core/errors.js';
import { slug } from '../../core/sweep/slug.js';
import { isObjectStoreLocation } from '../../run-store/run-location.js';
import { withPrices } from '../../client/prices.js';
import { validateSweep } from '../../client/sweep-validation.js';
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

/** Each --model given, in order (the option repeats). */
const collect = (value: string, previous: readonly string[] = []) => [...previous, value];

/**
 * The sweep file with --model's models in place of its own. Its name (and so
 * its default run directory) gains the models, so one file run for several
 * models fills one run directory per model.
 */
function withModels(raw: Record<string, unknown>, models: readonly string[], file: string): Record<string, unknown> {
  if (models.length === 0) return raw;
  if (raw.agent !== undefined && (raw.agent as { kind?: unknown }).kind === 'split')
    throw new InputError(`--model: ${file} names a split agent (agent.planner, agent.builder); edit those instead`);
  const named = `${String(raw.name)}_${models.map((model) => slug(model.replaceAll('/', '_'))).join('_')}`;
  const digest = () => createHash('sha256').update(models.join('\n')).digest('hex').slice(0, 8);
  const name = named.length <= 120 ? named : `${String(raw.name)}_${digest()}`;
  return { ...raw, name, models: [...models] };
}

/** The sweep file with --unit-cap and --cap in place of its unitCap and runCap. */
const withCaps = (raw: Record<string, unknown>, flags: ExecutionFlags): Record<string, unknown> => ({
  ...raw,
  ...(flags.unitCap !== undefined && { unitCap: flags.unitCap }),
  ...(flags.cap !== undefined && { runCap: flags.cap }),
});

export function registerSweep(program: Command): void {
  addExecutionOptions(
    program
      .command('sweep')
      .description('run (or resume) a sweep described by a YAML or JSON file')
      .argument(
        '<file>',
        'sweep file: name, models (or agent: {kind: split, planner, builder}), rungs, seeds, budgets, charges, reskins, announceN, arms, ... (allocbench schema sweep prints them all)',
      )
      .option(
        '--model <provider/model>',
        "run these models instead of the file's (repeat for several); the sweep's name and run directory gain their names",
        collect,
      ),
  ).action(async (file: string, flags: ExecutionFlags & { model?: string[] }) => {
    const raw = await readSweepFile(file);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`${file}: a sweep is a mapping of settings`);
    const models = flags.model ?? [];
    const config = validateSweep(
      withPrices(withCaps(withModels(raw as Record<string, unknown>, models, file), flags), flags.prices),
      file,
      (index) => (models.length > 0 ? `--model ${models[index]}` : `${file}.models.${index}`),
    );
    // A streams directory and a recorded run named in a sweep file are relative to the file.
    const relative = (path: string) => (isObjectStoreLocation(path) ? path : resolve(dirname(file), path));
    const { executeSweep } = await import('./execute-sweep.js');
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

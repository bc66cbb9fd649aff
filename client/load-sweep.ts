import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InputError } from '../core/errors.js';
import type { SplitRole } from '../core/rungs/rung.js';
import { slug } from '../core/sweep/slug.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { isObjectStoreLocation } from '../run-store/run-location.js';
import { withPrices } from './prices.js';
import { validateSweep } from './sweep-validation.js';

/** What may replace a sweep file's own settings when it is loaded (the `sweep` command's flags). */
export interface SweepOverrides {
  /** These models instead of the file's; the sweep's name (so its default run directory) gains their names. */
  readonly models?: readonly string[];
  /** Cost cap per session in USD, instead of the file's unitCap. */
  readonly unitCap?: number;
  /** Cost cap for the whole run in USD, instead of the file's runCap. */
  readonly runCap?: number;
  /** The price table (default: config/prices.yaml). */
  readonly prices?: string;
}

/** How `defineSweep` names the fields of its errors. */
export interface SweepSubject {
  /** What the sweep is, at the start of each error line (a file's path; default 'sweep'). */
  readonly subject?: string;
  /** How the i-th model is named in an error (default: `<subject>.models.<i>`). */
  readonly modelField?: (index: number) => string;
  /** How a split agent's planner or builder is named in an error (default: `<subject>.agent.<role>`). */
  readonly agentField?: (role: SplitRole) => string;
  /** The price table (default: config/prices.yaml). */
  readonly prices?: string;
}

/**
 * A sweep from its settings, as a sweep file holds them: prices filled in from
 * the price table, every setting and model id checked. Every problem is a line
 * of one InputError, and nothing starts.
 */
export function defineSweep(raw: Record<string, unknown>, options: SweepSubject = {}): SweepConfig {
  const subject = options.subject ?? 'sweep';
  return validateSweep(
    withPrices(raw, options.prices),
    subject,
    options.modelField ?? ((index) => `${subject}.models.${index}`),
    options.agentField,
  );
}

/** A sweep file (YAML or JSON), with `overrides` in place of its own settings; its streams and recorded run are relative to it. */
export async function loadSweep(file: string, overrides: SweepOverrides = {}): Promise<SweepConfig> {
  const raw = await readSweepFile(file);
  const models = overrides.models ?? [];
  const config = defineSweep(withCaps(withModels(raw, models, file), overrides), {
    subject: file,
    modelField: (index) => (models.length > 0 ? `--model ${models[index]}` : `${file}.models.${index}`),
    ...(overrides.prices !== undefined && { prices: overrides.prices }),
  });
  const relative = (path: string) => (isObjectStoreLocation(path) ? path : resolve(dirname(file), path));
  return {
    ...config,
    ...(config.streams !== null && { streams: resolve(dirname(file), config.streams) }),
    ...(config.replay && { replay: { ...config.replay, from: relative(config.replay.from) } }),
  };
}

async function readSweepFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new InputError(`${path}: cannot read the sweep file`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text); // YAML is a superset of JSON
  } catch (error) {
    throw new InputError(`${path}: not valid YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`${path}: a sweep is a mapping of settings`);
  return raw as Record<string, unknown>;
}

/**
 * The sweep file with other models in place of its own. Its name (and so its
 * default run directory) gains the models, so one file run for several models
 * fills one run directory per model.
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

/** The sweep file with other cost caps in place of its unitCap and runCap. */
const withCaps = (raw: Record<string, unknown>, overrides: SweepOverrides): Record<string, unknown> => ({
  ...raw,
  ...(overrides.unitCap !== undefined && { unitCap: overrides.unitCap }),
  ...(overrides.runCap !== undefined && { runCap: overrides.runCap }),
});

import { join } from 'node:path';
import { withoutOptions } from '../activities/providers/model-options.js';
import { readPriceTable } from '../activities/providers/prices.js';
import { projectRoot } from '../infra/project-root.js';

/** The price table shipped with the project. */
export const DEFAULT_PRICE_TABLE = () => join(projectRoot(), 'config', 'prices.yaml');

/**
/**
 * The raw sweep with prices for its models (a split agent's planner and
 * builder too) filled in from a price table (a model id with options,
 * `…?reasoning_effort=high`, takes its model's price unless the table lists it
 * whole); prices written in the sweep itself win. The resolved prices are part
 * of the sweep, so the manifest records exactly what was charged.
 */
export function withPrices(raw: Record<string, unknown>, tablePath = DEFAULT_PRICE_TABLE()): Record<string, unknown> {
  const table = readPriceTable(tablePath);
  const agent = (typeof raw.agent === 'object' && raw.agent !== null ? raw.agent : {}) as Record<string, unknown>;
  const listed = Array.isArray(raw.models) ? (raw.models as unknown[]) : [];
  const models = [...listed, agent.planner, agent.builder].filter((m): m is string => typeof m === 'string');
  const fromTable = Object.fromEntries(
    models.flatMap((model) => {
      const price = table[model] ?? table[withoutOptions(model)];
      return price ? [[model, price]] : [];
    }),
  );
  return { ...raw, prices: { ...fromTable, ...((raw.prices as Record<string, unknown> | undefined) ?? {}) } };
}

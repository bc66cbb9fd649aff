import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseOrThrow } from '../../core/validation.js';
import { InputError } from '../../core/errors.js';
import { priceSchema, type Price } from '../../core/sweep/price.js';
import type { Usage } from '../../core/chat/usage.js';

const priceTableSchema = z.record(z.string(), priceSchema);

export function costOf(usage: Usage, price: Price): number {
  const cached = usage.cachedInputTokens;
  const written = usage.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached - written);
  const dollars =
    fresh * price.input + cached * price.cachedInput + written * (price.cacheWrite ?? price.input) + usage.outputTokens * price.output;
  return dollars / 1_000_000;
}

/** A YAML or JSON price table: `provider/model: { input, cachedInput, cacheWrite?, output }`. */
export function readPriceTable(path: string): Record<string, Price> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new InputError(`${path}: cannot read the price table`);
  }
  return parseOrThrow(priceTableSchema, parseYaml(text) ?? {}, path);
}

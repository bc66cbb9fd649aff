import { InputError } from '../core/errors.js';

/**
 * The model a command-line name stands for among those present: the model
 * itself, or the one model whose id starts with it. No match, or several, is
 * one line naming what is there.
 */
export function resolveModel(name: string, models: readonly string[], what: string): string {
  if (models.includes(name)) return name;
  const matches = models.filter((model) => model.startsWith(name));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) throw new InputError(`${what}: no model in these runs starts with '${name}' (models: ${models.join(', ')})`);
  throw new InputError(`${what}: '${name}' is ambiguous, it starts ${matches.join(', ')}`);
}

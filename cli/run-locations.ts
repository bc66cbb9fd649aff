import { InputError } from '../core/errors.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { resolveRunLocation } from '../run-store/run-location.js';

/** The run locations a command reads, resolved; each one that does not exist is a line of the error, named as it was typed. */
export async function existingRunLocations(locations: readonly string[]): Promise<string[]> {
  const resolved = locations.map(resolveRunLocation);
  const exists = await Promise.all(resolved.map((location) => openRunStore(location).exists()));
  const missing = locations.filter((_, i) => !exists[i]);
  if (missing.length > 0) throw new InputError(missing.map((location) => `${location}: no such run directory`).join('\n'));
  return resolved;
}

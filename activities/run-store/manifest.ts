import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { experimentHash, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { projectRoot } from '../../infra/project-root.js';
import { TEMPORAL_CLI_VERSION } from '../../infra/temporal-cli.js';
import { readJsonIfExists, writeJsonAtomic } from './json-files.js';
import type { ImportProvenance } from './provenance.js';
import { runLayout } from './run-layout.js';
import { withFile } from './store-errors.js';

/** manifest.json: the sweep's exact settings, written when it first starts and checked on every resume. */
export interface Manifest {
  readonly name: string;
  readonly experimentHash: string;
  readonly config: SweepConfig;
  readonly createdAt: string;
  readonly versions: { readonly allocbench: string; readonly node: string; readonly temporalCli: string };
  /** Set on a run directory written by `allocbench import`: where its sessions came from. */
  readonly import?: ImportProvenance;
}

function allocbenchVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Checks that a run directory is new or holds the same experiment: a changed
 * sweep under the same name is refused, never mixed into earlier results.
 * Returns the existing manifest, if any.
 */
export async function checkRunDirectory(runDir: string, config: SweepConfig): Promise<Manifest | undefined> {
  const hash = experimentHash(config);
  const existing = await readJsonIfExists<Manifest>(runLayout.manifest(runDir));
  if (existing && (existing.name !== config.name || existing.experimentHash !== hash)) {
    throw new InputError(
      `${runDir} already holds sweep '${existing.name}' with different settings (experiment ${existing.experimentHash.slice(0, 12)}, now ${hash.slice(0, 12)}); use another name or output directory`,
    );
  }
  return existing;
}

/** Writes the manifest of a new run directory (after checkRunDirectory). */
export async function claimRunDirectory(runDir: string, config: SweepConfig): Promise<Manifest> {
  const existing = await checkRunDirectory(runDir, config);
  if (existing) return existing;
  const manifest = newManifest(config);
  const path = runLayout.manifest(runDir);
  await withFile(path, () => writeJsonAtomic(path, manifest));
  return manifest;
}

/** The manifest of a run directory about to be written (an import passes its provenance). */
export function newManifest(config: SweepConfig, provenance?: ImportProvenance): Manifest {
  return {
    name: config.name,
    experimentHash: experimentHash(config),
    config,
    createdAt: provenance?.importedAt ?? new Date().toISOString(),
    versions: { allocbench: allocbenchVersion(), node: process.version, temporalCli: TEMPORAL_CLI_VERSION },
    ...(provenance && { import: provenance }),
  };
}

export async function readManifest(runDir: string): Promise<Manifest> {
  const manifest = await readJsonIfExists<Manifest>(runLayout.manifest(runDir));
  if (!manifest) throw new InputError(`${runDir}: not a run directory (no manifest.json)`);
  return manifest;
}

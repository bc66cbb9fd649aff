import { InputError } from '../core/errors.js';
import { isDeepStrictEqual } from 'node:util';
import { costCapsOf } from '../core/sweep/expand-sweep.js';
import { experimentHash, parseSweepConfig, type SweepConfig } from '../core/sweep/sweep-config.js';
import type { ImportProvenance } from './provenance.js';
import { runParts } from './run-layout.js';
import type { Manifest, ManifestVersions } from './manifest-record.js';
import type { RunStore } from './run-store.js';

/**
 * A changed sweep under the same name is refused, never mixed into earlier
 * results. The run's recorded settings are hashed again, so that what is not
 * part of the experiment today (the cost caps) does not refuse a run recorded
 * when it was.
 */
function refuseOther(store: RunStore, existing: Manifest, config: SweepConfig): void {
  const hash = experimentHash(config);
  const recorded = experimentHash(parseSweepConfig(existing.config, `${store.location}: manifest config`));
  if (existing.name !== config.name || recorded !== hash) {
    throw new InputError(
      `${store.location} already holds sweep '${existing.name}' with different settings (experiment ${recorded.slice(0, 12)}, now ${hash.slice(0, 12)}); use another name or output directory`,
    );
  }
}

/** Checks that a run is new or holds the same experiment. Returns the existing manifest, if any. */
export async function checkRunDirectory(store: RunStore, config: SweepConfig): Promise<Manifest | undefined> {
  const existing = await store.readManifest();
  if (existing) refuseOther(store, existing, config);
  return existing;
}

/**
 * Writes the manifest of a new run, or checks the one that stands (created
 * only if absent, so two writers cannot both win); a run resumed under other
 * cost caps records them as the ones it runs under now.
 */
export async function claimRunDirectory(store: RunStore, config: SweepConfig, versions: ManifestVersions): Promise<Manifest> {
  const standing = await store.createManifest(newManifest(config, versions));
  refuseOther(store, standing, config);
  const caps = costCapsOf(config);
  if (isDeepStrictEqual(costCapsOf(standing.config), caps)) return standing;
  const resumed = { ...standing, experimentHash: experimentHash(config), config: { ...standing.config, ...caps } };
  await store.replaceManifest(resumed);
  return resumed;
}

/** The manifest of a run about to be written (an import passes its provenance). */
export function newManifest(config: SweepConfig, versions: ManifestVersions, provenance?: ImportProvenance): Manifest {
  return {
    name: config.name,
    experimentHash: experimentHash(config),
    config,
    createdAt: provenance?.importedAt ?? new Date().toISOString(),
    versions,
    ...(provenance && { import: provenance }),
  };
}

export async function readManifest(store: RunStore): Promise<Manifest> {
  const manifest = await store.readManifest();
  if (manifest) return manifest;
  throw new InputError(
    `${store.location}: ${(await store.exists()) ? `not a run directory (no ${runParts.manifest})` : 'no such run directory'}`,
  );
}

import type { SweepConfig } from '../core/sweep/sweep-config.js';
import type { ImportProvenance } from './provenance.js';

/** manifest.json: the sweep's exact settings, written when it first starts and checked on every resume. */
export interface Manifest {
  readonly name: string;
  readonly experimentHash: string;
  readonly config: SweepConfig;
  readonly createdAt: string;
  readonly versions: ManifestVersions;
  /** Set on a run written by `allocbench import`: where its sessions came from. */
  readonly import?: ImportProvenance;
}

export interface ManifestVersions {
  readonly allocbench: string;
  readonly node: string;
  readonly temporalCli: string;
}

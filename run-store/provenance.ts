import type { Rung } from '../core/rungs/rung.js';
import type { Reskin } from '../core/rungs/vocabulary.js';

/** The source settings of an imported arm, as its name and files state them. */
export interface SourceSettings {
  /** The authors' model key (model_key): the arm's model in our tables. */
  readonly model: string;
  readonly rung: Rung;
  readonly reskin: Reskin | null;
  readonly announceN: boolean;
  readonly budget: number;
  readonly charge: number;
  readonly magnitude: number;
  /** Empty-fence retries (`_efr<N>`); 0 without. */
  readonly emptyRetries: number;
  /** R3's protocol version (class-bound-r3-v1, or an older arm's tool schema version); null at R0–R2. */
  readonly protocol: string | null;
  readonly provider: string | null;
  readonly resolvedModel: string | null;
  readonly toolChoice: string | null;
  readonly tokenCap: number | null;
  readonly unitCap: number | null;
  readonly runCap: number | null;
  /** R3: whether sessions stopped at the last write (the publication protocol) or played the whole stream. */
  readonly r3End: 'budget-exhausted' | 'stream-end' | null;
  /** Other tokens of the arm's name (canonical-structure, write-budget-v2, …). */
  readonly variants: readonly string[];
}

/** Where an imported run directory came from: manifest.json's `import`. */
export interface ImportProvenance {
  /** The arm's path relative to the imported root (the authors' runs/), e.g. `economic_surface_haiku/R2/B_1/K_10`. */
  readonly source: string;
  /** The root as it was on the importing machine. */
  readonly root: string;
  /** SHA-256 of every source file read, by path relative to the root. */
  readonly files: Readonly<Record<string, string>>;
  readonly settings: SourceSettings;
  readonly importedAt: string;
}

import { InputError } from '../../core/errors.js';
import { runsUnder } from '../../run-store/open-run-store.js';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { RunIndex } from './run-index.js';

/** The runs a viewer serves, by an id made from each run's name (unique among them). */
export class RunCatalog {
  private constructor(readonly runs: ReadonlyMap<string, RunIndex>) {}

  /** Every run at or directly under the locations; a location with none is an InputError naming it. */
  static async open(locations: readonly string[]): Promise<RunCatalog> {
    const runs = new Map<string, RunIndex>();
    for (const location of locations) {
      const resolved = resolveRunLocation(location);
      const found = await runsUnder(resolved);
      if (found.length === 0) throw new InputError(`${resolved}: not a run directory (no manifest.json) and holds none`);
      for (const run of found) {
        const index = await RunIndex.open(run);
        if ([...runs.values()].some((known) => known.location === index.location)) continue;
        let id = index.name;
        for (let n = 2; runs.has(id); n++) id = `${index.name}-${n}`;
        runs.set(id, index);
      }
    }
    return new RunCatalog(runs);
  }

  get(id: string): RunIndex | undefined {
    return this.runs.get(id);
  }

  idOf(index: RunIndex): string {
    for (const [id, run] of this.runs) if (run === index) return id;
    throw new Error(`${index.location} is not in the catalog`);
  }
}

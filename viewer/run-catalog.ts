import { InputError } from '../core/errors.js';
import { runsOnTheirWay, runsUnder } from '../run-store/open-run-store.js';
import { resolveRunLocation } from '../run-store/run-location.js';
import { RunIndex } from './run-index.js';

/** A location the viewer was given: a run, or a folder that holds runs or is waited for. */
interface Location {
  /** As it was typed, for the lines that name it. */
  readonly typed: string;
  readonly resolved: string;
  /** It is a run itself: nothing can appear under it. */
  isRun: boolean;
  /** A run has been found at or under it. */
  holdsRuns: boolean;
}

/** What the viewer says of a location that holds no run yet (on stderr, and on the runs page). */
export const waitingLine = (location: string) => `${location}: no run there yet; waiting for it`;

/** How often the catalog looks for new runs at most (each look a listing of every folder it serves). */
const LOOK_EVERY_MS = 1000;

const lineOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/**
 * The runs a viewer serves, by an id made from each run's name (unique among
 * them). Follows the disk: a run that appears under a folder it was given (or
 * at a location it waits for) after it opened is found by the next refresh.
 */
export class RunCatalog {
  private readonly indexes = new Map<string, RunIndex>();
  /** Runs that appeared after the start and could not be opened: why, by location. */
  private readonly unopenedRuns = new Map<string, string>();
  private refreshing: Promise<void> | undefined;
  private refreshedAt = Date.now();

  private constructor(private readonly locations: readonly Location[]) {}

  /**
   * Every run at or directly under the locations. A location with none is
   * waited for if runs may yet appear there (runsOnTheirWay); else it is an
   * InputError naming it, as is a run that cannot be opened.
   */
  static async open(locations: readonly string[]): Promise<RunCatalog> {
    const catalog = new RunCatalog(
      locations.map((typed) => ({ typed, resolved: resolveRunLocation(typed), isRun: false, holdsRuns: false })),
    );
    for (const location of catalog.locations) {
      const runs = await runsUnder(location.resolved);
      if (runs.length === 0 && !(await runsOnTheirWay(location.resolved)))
        throw new InputError(`${location.resolved}: not a run directory (no manifest.json) and holds none`);
      catalog.markFound(location, runs);
      for (const run of runs) if (!catalog.known(run)) await catalog.add(run);
    }
    return catalog;
  }

  get runs(): ReadonlyMap<string, RunIndex> {
    return this.indexes;
  }

  /** The locations given that hold no run yet, as typed. */
  get waitingFor(): string[] {
    return this.locations.filter((location) => !location.holdsRuns).map((location) => location.typed);
  }

  /** Whether a run can still appear: some location is a folder of runs, or is waited for. */
  get following(): boolean {
    return this.locations.some((location) => !location.isRun);
  }

  /** Why runs that appeared could not be opened, one line each. */
  get unopened(): string[] {
    return [...this.unopenedRuns].map(([location, why]) => `${location}: ${why}`);
  }

  /** What the runs page shows of the catalog: it reloads when this changes. */
  describe(): { runs: string[]; waitingFor: string[]; unopened: string[] } {
    return { runs: [...this.indexes.keys()], waitingFor: this.waitingFor, unopened: this.unopened };
  }

  get(id: string): RunIndex | undefined {
    return this.indexes.get(id);
  }

  idOf(index: RunIndex): string {
    for (const [id, run] of this.indexes) if (run === index) return id;
    throw new Error(`${index.location} is not in the catalog`);
  }

  /** Looks for runs that appeared, unless it looked less than a second ago; one look at a time, shared by every caller. */
  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (!this.following || Date.now() - this.refreshedAt < LOOK_EVERY_MS) return Promise.resolve();
    this.refreshing = this.findNewRuns().finally(() => {
      this.refreshedAt = Date.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async findNewRuns(): Promise<void> {
    for (const location of this.locations) {
      if (location.isRun) continue;
      // A location that cannot be read now is read again at the next look; the pages go on with the runs they have.
      const runs = await runsUnder(location.resolved).catch(() => []);
      this.markFound(location, runs);
      for (const run of runs) {
        if (this.known(run)) continue;
        try {
          await this.add(run);
          this.unopenedRuns.delete(run);
        } catch (error) {
          this.unopenedRuns.set(run, lineOf(error));
        }
      }
    }
  }

  private known(location: string): boolean {
    return [...this.indexes.values()].some((index) => index.location === location);
  }

  private markFound(location: Location, runs: readonly string[]): void {
    location.isRun = runs.includes(location.resolved);
    location.holdsRuns ||= runs.length > 0;
  }

  private async add(run: string): Promise<void> {
    const index = await RunIndex.open(run);
    let id = index.name;
    for (let n = 2; this.indexes.has(id); n++) id = `${index.name}-${n}`;
    this.indexes.set(id, index);
  }
}

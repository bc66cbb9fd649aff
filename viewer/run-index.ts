import { InputError } from '../core/errors.js';
import { armKeyOf, groupByArm, type ArmKey } from '../analysis/arms.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { sessionDirName, sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import type { Manifest } from '../run-store/manifest-record.js';
import { readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { providerConcurrency, type ProviderConcurrency } from '../run-store/provider-concurrency.js';
import type { RunStore } from '../run-store/run-store.js';
import { countStates, readSessionStates, type SessionState } from '../run-store/session-states.js';
import { cellResults, type CellResult, type SummaryCore } from '../analysis/run-results.js';

/** Where a session stands, as the viewer lists it: the run store's state, once read. */
export type ViewedState = SessionState | 'not read yet';

/** One session of the sweep as the index keeps it: its settings and its summary without the per-turn decisions. */
export interface IndexedSession {
  /** Position in the sweep's expansion. */
  readonly index: number;
  readonly spec: SessionSpec;
  readonly key: string;
  /** Its folder's name: the session's id in the viewer's addresses. */
  readonly folder: string;
  /** Index of its cell in `cells()`. */
  readonly cell: number;
  state: ViewedState;
  summary?: SummaryCore;
  /** Why its summary cannot be read (one line). */
  corrupt?: string;
}

/** The counts a page refreshes while a sweep runs (what `status` prints, and the spend). */
export interface LiveCounts {
  readonly total: number;
  /** Sessions the index has read at least once (the first pass over a large run takes a while). */
  readonly read: number;
  /** Why the index could not read the run at its last pass. */
  readonly failure?: string;
  /** How many sessions are in each state, over those read. */
  readonly states: Readonly<Record<SessionState, number>>;
  readonly costUsd: number;
  /** The run's cost cap in USD; null for none. */
  readonly runCap: number | null;
  /** Throttled replies retried under the adaptive limits, over every provider and worker. */
  readonly throttled: number;
  readonly providers: readonly ProviderConcurrency[];
  readonly at: string;
}

/** Summaries read at once by a refresh. */
const BATCH = 256;

/**
 * A run as the viewer holds it: the manifest, the sweep's sessions and, for
 * each, its summary without the per-turn decisions (about a kilobyte a
 * session) — never a transcript. Built incrementally: the first pass reads
 * every summary in the background, a batch at a time, and the pages show what
 * it has read so far; later passes read only the summaries of sessions not yet
 * finished, and whether those have begun.
 */
export class RunIndex {
  readonly sessions: IndexedSession[];
  readonly cellKeys: readonly ArmKey[];
  private readonly byFolder: ReadonlyMap<string, IndexedSession>;
  private refreshing: Promise<void> | undefined;
  private refreshedAt = 0;
  private read = 0;
  /** Why the last pass stopped (the store became unreadable), one line; undefined when it ended well. */
  private failure: string | undefined;

  private constructor(
    readonly store: RunStore,
    readonly manifest: Manifest,
    specs: readonly SessionSpec[],
  ) {
    const source = manifest.import?.source ?? null;
    const groups = groupByArm(
      specs.map((spec, index) => ({ spec, index })),
      ({ spec }) => armKeyOf(spec, source),
    );
    const cellOf = new Array<number>(specs.length);
    groups.forEach((group, cell) => group.items.forEach(({ index }) => (cellOf[index] = cell)));
    this.cellKeys = groups.map((group) => group.key);
    this.sessions = specs.map((spec, index) => ({
      index,
      spec,
      key: sessionKey(spec),
      folder: sessionDirName(spec),
      cell: cellOf[index] as number,
      state: 'not read yet',
    }));
    this.byFolder = new Map(this.sessions.map((session) => [session.folder, session]));
  }

  /**
   * The run at `location`, its first pass started; not a run (no manifest, or
   * one that does not parse) is an InputError naming it. The first batch of
   * summaries is read before it returns, so that an unreachable store fails here.
   */
  static async open(location: string): Promise<RunIndex> {
    const store = openRunStore(location);
    const manifest = await readManifest(store);
    const specs = expandSweep(parseSweepConfig(manifest.config, `${store.location}: manifest config`));
    const index = new RunIndex(store, manifest, specs);
    await Promise.race([index.refresh(0), index.firstBatch]);
    if (index.failure !== undefined) throw new InputError(index.failure);
    return index;
  }

  private firstBatchRead: () => void = () => undefined;
  private readonly firstBatch = new Promise<void>((resolve) => (this.firstBatchRead = resolve));

  get location(): string {
    return this.store.location;
  }

  get name(): string {
    return this.manifest.name;
  }

  /** Reads what changed unless the last refresh is younger than `maxAgeMs`; one refresh at a time, shared by every caller (a page need not wait for it). */
  refresh(maxAgeMs = 1000): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.refreshedAt < maxAgeMs) return Promise.resolve();
    this.refreshing = this.readChanges()
      .then(
        () => (this.failure = undefined),
        (error: unknown) => void (this.failure = (error instanceof Error ? error.message : String(error)).split('\n')[0]),
      )
      .finally(() => {
        this.refreshedAt = Date.now();
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private async readChanges(): Promise<void> {
    // A finished session stays finished; any other may be run again (a stopped or cancelled one resumed, an unreadable one rescored).
    const open = this.sessions.filter((session) => session.state !== 'finished');
    for (let from = 0; from < open.length; from += BATCH) {
      const batch = open.slice(from, from + BATCH);
      const readings = await readSessionStates(
        this.store,
        batch.map((session) => session.spec),
      );
      batch.forEach((session, i) => {
        const reading = readings[i];
        if (!reading) return;
        session.state = reading.state;
        if (reading.summary) {
          // The decisions are the bulk of a summary and are read again with the session itself.
          // eslint-disable-next-line @typescript-eslint/no-unused-vars
          const { decisions, ...core } = reading.summary;
          session.summary = core;
        } else delete session.summary;
        if (reading.corrupt) session.corrupt = reading.corrupt;
        else delete session.corrupt;
      });
      this.read = Math.max(this.read, this.sessions.length - open.length + from + batch.length);
      this.firstBatchRead();
    }
    this.read = this.sessions.length;
    this.firstBatchRead();
  }

  /** The cells with the CLI's metrics (cellResults), over the summaries read so far; `optima`: policy/optimal's nets by session key. */
  cells(optima: ReadonlyMap<string, number> | null = null): CellResult[] {
    return cellResults(
      this.sessions.map((session) => session.spec),
      this.sessions.map((session) => session.summary),
      this.manifest.import?.source ?? null,
      optima,
    );
  }

  session(folder: string): IndexedSession | undefined {
    return this.byFolder.get(folder);
  }

  async live(): Promise<LiveCounts> {
    const providers = await providerConcurrency(this.store);
    return {
      total: this.sessions.length,
      read: this.read,
      ...(this.failure !== undefined && { failure: this.failure }),
      states: countStates(this.sessions.flatMap((session) => (session.state === 'not read yet' ? [] : [session.state]))),
      costUsd: await this.store.runCostUsd(),
      runCap: this.manifest.config.runCap,
      throttled: providers.reduce((sum, provider) => sum + provider.throttled, 0),
      providers,
      at: new Date().toISOString(),
    };
  }
}

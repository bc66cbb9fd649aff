import { onlineMetrics, poolOnlineMetrics, type PooledOnlineMetrics } from '../core/metrics/online-metrics.js';
import { poolMetrics, type PooledMetrics } from '../core/metrics/pooled-metrics.js';
import { encodeClasses } from '../core/session/compact-codes.js';
import { classSequence } from '../core/stream/stream.js';
import { poolScriptMetrics, type PooledScriptMetrics } from '../core/scripts/pooled-script-metrics.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { armKeyOf, groupByArm } from './arms.js';
import { validity } from './stats/decision-rules.js';
import { onlineOptima } from './online-optimum.js';
import type { CacheOptions } from './stream-values-cache.js';
import { readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import type { RunStore } from '../run-store/run-store.js';
import type { SessionSummary } from '../run-store/session-summary.js';
import { countStates, isMeasured, readSessionStates, summaryState, type SessionState } from '../run-store/session-states.js';
import type { SessionEnding } from '../core/session/termination.js';

/** One cell of a sweep: every seed of one (model, rung, reskin, N disclosure, B, K). */
export interface CellResult {
  /** The model; a split agent's planner. */
  readonly model: string;
  /** A split agent's builder; null for a single agent. */
  readonly builder: string | null;
  readonly rung: string;
  readonly reskin: string | null;
  readonly announceN: boolean;
  readonly budget: number;
  readonly charge: number;
  /** An economic cell: the charge rule was stated (K = 0 included). */
  readonly economic: boolean;
  readonly sessions: number;
  /** Sessions finished by the experiment's own rules: the only ones measured. */
  readonly finished: number;
  /** Sessions whose last run ended otherwise (session-states.ts): stopped by a cost cap, cancelled, failed mechanically. */
  readonly stopped: number;
  readonly cancelled: number;
  readonly mechanicalFailures: number;
  /** Pooled over the finished sessions; null when there are none. */
  readonly pooled: PooledMetrics | null;
  /** Against policy/optimal on the same streams (online Score, regret), over the same sessions; null at R3 (not scored), when there are none, or when not asked for. */
  readonly online: PooledOnlineMetrics | null;
  /** R3 cells: builds, reuse, refused runs, script success and raw answers. */
  readonly script: PooledScriptMetrics | null;
  readonly unresolved: number;
  readonly invalid: boolean;
}

export interface RunResults {
  readonly runDir: string;
  readonly name: string;
  readonly total: number;
  /** How many sessions are in each state (run-store/session-states.ts). */
  readonly states: Readonly<Record<SessionState, number>>;
  /** Pooled over every finished session. */
  readonly overall: PooledMetrics | null;
  /** The same against policy/optimal, over the sessions not at R3; null when there are none or when not asked for. */
  readonly overallOnline: PooledOnlineMetrics | null;
  /** Sums over the same sessions. */
  readonly totals: { readonly utility: number; readonly optimum: number; readonly commitments: number; readonly unresolved: number };
  readonly cells: readonly CellResult[];
  /** Summaries that are there but unreadable, one line each naming the file or object: counted as not finished. */
  readonly unreadable: readonly string[];
}

/** policy/optimal's net on the stream of each session that counts (finished, not at R3), by session key. */
export async function onlineOptimaOf(
  store: RunStore,
  summaries: readonly Pick<SummaryCore, 'sessionKey' | 'spec' | 'termination'>[],
  options: CacheOptions,
): Promise<Map<string, number>> {
  const scored = summaries.filter((s) => isMeasured(s) && s.spec.rung !== 'R3');
  const streams = await Promise.all(
    scored.map(async (s) => {
      const stream = await store.readStream(s.spec.seed);
      if (!stream) throw new Error(`${store.location}: no stream for seed ${s.spec.seed}, which a finished session played`);
      return stream;
    }),
  );
  const { nets } = await onlineOptima(
    scored.map((s, i) => ({ spec: s.spec, classes: encodeClasses(classSequence(streams[i] as (typeof streams)[number])) })),
    options,
  );
  return new Map(scored.flatMap((s, i) => (typeof nets[i] === 'number' ? [[s.sessionKey, nets[i]] as const] : [])));
}

/** A summary without its per-turn decisions: what pooling a cell reads (the viewer keeps only these in memory). */
export type SummaryCore = Omit<SessionSummary, 'decisions'>;

function pooledOnline(summaries: readonly SummaryCore[], optima: ReadonlyMap<string, number> | null): PooledOnlineMetrics | null {
  const against = summaries.flatMap((s) => {
    const optimum = optima?.get(s.sessionKey);
    return optimum === undefined ? [] : [{ net: s.metrics.net, online: onlineMetrics(s.metrics.net, optimum) }];
  });
  return against.length > 0 ? poolOnlineMetrics(against) : null;
}

/**
 * The sweep's cells, pooled from the summaries of its sessions (in `specs`'
 * order; undefined where a session has none): the one place a cell's metrics
 * are computed, for the CLI's table and the viewer's alike.
 */
export function cellResults(
  specs: readonly SessionSpec[],
  summaries: readonly (SummaryCore | undefined)[],
  source: string | null,
  optima: ReadonlyMap<string, number> | null,
): CellResult[] {
  const cells = groupByArm(
    specs.map((spec, index) => ({ spec, summary: summaries[index] })),
    ({ spec }) => armKeyOf(spec, source),
  );
  return cells.map(({ key, items }): CellResult => {
    const spec = (items[0] as (typeof items)[number]).spec;
    const cellSummaries = items.map((item) => item.summary);
    const ended = cellSummaries.filter((s): s is SummaryCore => s !== undefined);
    const valid = ended.filter(isMeasured);
    const endedAs = (ending: SessionEnding) => ended.filter((s) => summaryState(s) === ending).length;
    const pooled = valid.length > 0 ? poolMetrics(valid.map((s) => s.metrics)) : null;
    const scriptMetrics = valid.flatMap((s) => (s.script ? [s.script.metrics] : []));
    return {
      model: spec.model,
      builder: spec.agent?.builder.model ?? null,
      rung: spec.rung,
      reskin: spec.reskin,
      announceN: spec.announceN,
      budget: spec.budget,
      charge: spec.charge,
      economic: key.economic,
      sessions: cellSummaries.length,
      finished: valid.length,
      stopped: endedAs('stopped'),
      cancelled: endedAs('cancelled'),
      mechanicalFailures: endedAs('failed'),
      pooled,
      online: pooledOnline(valid, optima),
      script: scriptMetrics.length > 0 ? poolScriptMetrics(scriptMetrics) : null,
      unresolved: valid.reduce((sum, s) => sum + s.metrics.unresolved, 0),
      invalid: !validity(valid.map((s) => ({ seed: s.spec.seed, metrics: s.metrics }))).valid,
    };
  });
}

/**
 * Reads a run directory's summaries and pools them per cell. Never talks to
 * Temporal. With `online`, each cell is also measured against policy/optimal on
 * its streams (which may solve its table: minutes the first time per setting).
 */
export async function readRunResults(runDir: string, online?: CacheOptions): Promise<RunResults> {
  const store = openRunStore(runDir);
  const manifest = await readManifest(store);
  const specs = expandSweep(manifest.config);
  const readings = await readSessionStates(store, specs);
  const summaries = readings.map((reading) => reading.summary);
  const validSummaries = summaries.filter((s): s is SessionSummary => s !== undefined && isMeasured(s));
  const optima = online ? await onlineOptimaOf(store, validSummaries, online) : null;
  const results = cellResults(specs, summaries, manifest.import?.source ?? null, optima);
  const valid = validSummaries.map((s) => s.metrics);
  const sum = (pick: (m: (typeof valid)[number]) => number) => valid.reduce((total, m) => total + pick(m), 0);
  return {
    runDir: store.location,
    name: manifest.name,
    total: specs.length,
    states: countStates(readings.map((reading) => reading.state)),
    overall: valid.length > 0 ? poolMetrics(valid) : null,
    overallOnline: pooledOnline(validSummaries, optima),
    totals: {
      utility: sum((m) => m.utility),
      optimum: sum((m) => m.optimum),
      commitments: sum((m) => m.commitments),
      unresolved: sum((m) => m.unresolved),
    },
    cells: results,
    unreadable: readings.flatMap((reading) => (reading.corrupt ? [reading.corrupt] : [])),
  };
}

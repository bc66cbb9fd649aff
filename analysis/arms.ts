import { onlineMetrics } from '../core/metrics/online-metrics.js';
import type { Rung } from '../core/rungs/rung.js';
import { agentName, type SessionSpec } from '../core/sweep/session-spec.js';
import type { LoadedSession } from './load/load-runs.js';
import type { SeedSession } from './stats/seed-session.js';

/**
 * What makes an arm (a cell): every seed of one (model, split agent's
 * builder, rung, reskin, N disclosure, B, K, magnitude) — and, for an
 * imported arm, its source: two of the authors' arms with the same settings
 * stay two arms, as in their tables.
 */
export interface ArmKey {
  /** The authors' arm path for an imported arm (e.g. `economic_surface_haiku/R2/B_1/K_10`); null for our own runs. */
  readonly source: string | null;
  /** The model; a split agent's planner. */
  readonly model: string;
  /** A split agent's builder (R3: the arm is the split agent); null for a single agent. */
  readonly builder: string | null;
  readonly rung: Rung;
  readonly reskin: string | null;
  readonly announceN: boolean;
  readonly budget: number;
  readonly charge: number;
  /**
   * A cell of an economic surface: the charge rule was stated (K = 0 included),
   * as in the authors' `economic_surface_<model>` cells and our runs with
   * `--charge` or `economic: true`.
   */
  readonly economic: boolean;
  readonly magnitude: number;
}

export interface Arm {
  readonly key: ArmKey;
  /** One per seed, ascending. */
  readonly sessions: readonly SeedSession[];
  readonly loaded: readonly LoadedSession[];
}

export function armKeyOf(spec: SessionSpec, source: string | null): ArmKey {
  return {
    source,
    model: spec.model,
    builder: spec.agent?.builder.model ?? null,
    rung: spec.rung,
    reskin: spec.reskin,
    announceN: spec.announceN,
    budget: spec.budget,
    charge: spec.charge,
    economic: spec.economic || spec.charge > 0,
    magnitude: spec.stream.magnitude,
  };
}

/** Groups items by arm, in order of first appearance: the one grouping the run table, analysis and import share. */
export function groupByArm<T>(items: readonly T[], keyOf: (item: T) => ArmKey): { key: ArmKey; items: T[] }[] {
  const groups = new Map<string, { key: ArmKey; items: T[] }>();
  for (const item of items) {
    const key = keyOf(item);
    const id = JSON.stringify(key);
    const group = groups.get(id) ?? { key, items: [] };
    group.items.push(item);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** Loaded sessions as arms, each arm's seeds ascending. */
export function groupArms(sessions: readonly LoadedSession[]): Arm[] {
  return groupByArm(sessions, (s) => armKeyOf(s.spec, s.source)).map(({ key, items }) => {
    const sorted = [...items].sort((a, b) => a.spec.seed - b.spec.seed);
    return {
      key,
      loaded: sorted,
      sessions: sorted.map((s) => ({
        seed: s.spec.seed,
        metrics: s.summary.metrics,
        ...(s.summary.script && { script: s.summary.script.metrics }),
        stream: { hash: s.summary.streamHash, classes: s.classes },
        ...(s.onlineOptimum !== undefined && { online: onlineMetrics(s.summary.metrics.net, s.onlineOptimum) }),
      })),
    };
  });
}

/** "policy/bayes · B3 · N disclosed", naming only what varies across the arms shown together. */
export function armLabel(key: ArmKey, varies: ReadonlySet<keyof ArmKey>): string {
  const parts = [varies.has('builder') && key.builder === null ? `${key.model} (single agent)` : agentName(key.model, key.builder)];
  if (varies.has('reskin') && key.reskin) parts.push(key.reskin);
  if (varies.has('announceN')) parts.push(key.announceN ? 'N disclosed' : 'N hidden');
  if (varies.has('budget')) parts.push(`B${key.budget}`);
  if (varies.has('charge')) parts.push(`K${key.charge}`);
  if (varies.has('economic') && key.economic) parts.push('economic');
  if (varies.has('magnitude')) parts.push(`magnitude ${key.magnitude}`);
  if (varies.has('source') && key.source) parts.push(key.source);
  return parts.join(' · ');
}

/** The key fields that differ among these arms. */
export function varyingFields(keys: readonly ArmKey[]): Set<keyof ArmKey> {
  const fields: (keyof ArmKey)[] = [
    'model',
    'builder',
    'rung',
    'reskin',
    'announceN',
    'budget',
    'charge',
    'economic',
    'magnitude',
    'source',
  ];
  return new Set(fields.filter((field) => new Set(keys.map((key) => key[field])).size > 1));
}

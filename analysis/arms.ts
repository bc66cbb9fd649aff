import type { Rung } from '../core/rungs/rung.js';
import type { LoadedSession } from './load/load-runs.js';
import type { SeedSession } from './stats/seed-session.js';

/** What makes a cell of a sweep: every seed of one (model, rung, reskin, N disclosure, B, K, magnitude). */
export interface ArmKey {
  readonly model: string;
  readonly rung: Rung;
  readonly reskin: string | null;
  readonly announceN: boolean;
  readonly budget: number;
  readonly charge: number;
  readonly magnitude: number;
}

export interface Arm {
  readonly key: ArmKey;
  /** One per seed, ascending. */
  readonly sessions: readonly SeedSession[];
  readonly loaded: readonly LoadedSession[];
}

const keyOf = ({ spec }: LoadedSession): ArmKey => ({
  model: spec.model,
  rung: spec.rung,
  reskin: spec.reskin,
  announceN: spec.announceN,
  budget: spec.budget,
  charge: spec.charge,
  magnitude: spec.stream.magnitude,
});

/** Groups sessions into arms, in order of first appearance, each arm's seeds ascending. */
export function groupArms(sessions: readonly LoadedSession[]): Arm[] {
  const arms = new Map<string, { key: ArmKey; loaded: LoadedSession[] }>();
  for (const session of sessions) {
    const key = keyOf(session);
    const id = JSON.stringify(key);
    const arm = arms.get(id) ?? { key, loaded: [] };
    arm.loaded.push(session);
    arms.set(id, arm);
  }
  return [...arms.values()].map(({ key, loaded }) => {
    const sorted = [...loaded].sort((a, b) => a.spec.seed - b.spec.seed);
    return {
      key,
      loaded: sorted,
      sessions: sorted.map((s) => ({
        seed: s.spec.seed,
        metrics: s.summary.metrics,
        ...(s.summary.script && { script: s.summary.script.metrics }),
      })),
    };
  });
}

/** "policy/bayes · B3 · N disclosed", naming only what varies across the arms shown together. */
export function armLabel(key: ArmKey, varies: ReadonlySet<keyof ArmKey>): string {
  const parts = [key.model];
  if (varies.has('reskin') && key.reskin) parts.push(key.reskin);
  if (varies.has('announceN')) parts.push(key.announceN ? 'N disclosed' : 'N hidden');
  if (varies.has('budget')) parts.push(`B${key.budget}`);
  if (varies.has('charge')) parts.push(`K${key.charge}`);
  if (varies.has('magnitude')) parts.push(`magnitude ${key.magnitude}`);
  return parts.join(' · ');
}

/** The key fields that differ among these arms. */
export function varyingFields(keys: readonly ArmKey[]): Set<keyof ArmKey> {
  const fields: (keyof ArmKey)[] = ['model', 'rung', 'reskin', 'announceN', 'budget', 'charge', 'magnitude'];
  return new Set(fields.filter((field) => new Set(keys.map((key) => key[field])).size > 1));
}

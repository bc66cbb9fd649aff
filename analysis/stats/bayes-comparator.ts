import { FAMILY_NAMES } from '../../core/families/family.js';
import { bayesRealized } from '../../core/policies/bayes.js';
import { decodeClasses } from '../../core/session/compact-codes.js';
import type { Arm } from '../arms.js';
import type { LoadedSession } from '../load/load-runs.js';
import { valuesPerStream, type CacheOptions } from '../stream-values-cache.js';

/** The Dirichlet(α) prior of the locked preregistration: uniform on the simplex. */
const ALPHA = 1;

/** Bump when policy/bayes's decisions change, so values computed before are not read. */
const CACHE_VERSION = 1;

type Setting = Pick<LoadedSession['spec'], 'budget' | 'charge'>;

const settingName = (spec: Setting, horizon: number) => `T${horizon}-B${spec.budget}-K${spec.charge}-N${FAMILY_NAMES.length}-alpha${ALPHA}`;

/** What policy/bayes collects on a class sequence (one base-36 character per item) at B and K. */
function collectedOn(classes: string, spec: Setting): number {
  return bayesRealized(decodeClasses(classes), { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length }, ALPHA)
    .collected;
}

/**
 * The loaded sessions with what the comparator collects on each one's stream,
 * for the R0 sessions that disclosed N: the gate judges R0, and the comparator
 * knows N. Its table takes seconds per setting, so the values are kept on
 * disk like the online optimum's (analysis/stream-values-cache.ts).
 */
export async function withBayesComparator(sessions: readonly LoadedSession[], options: CacheOptions): Promise<LoadedSession[]> {
  const bySetting = new Map<string, LoadedSession[]>();
  for (const session of sessions) {
    if (session.spec.rung !== 'R0' || !session.spec.announceN) continue;
    const name = settingName(session.spec, session.classes.length);
    bySetting.set(name, [...(bySetting.get(name) ?? []), session]);
  }
  const collected = new Map<LoadedSession, number>();
  for (const [name, group] of bySetting) {
    const { spec } = group[0] as LoadedSession;
    const values = await valuesPerStream(
      `bayes-collected-v${CACHE_VERSION}/${name}`,
      group.map((session) => session.classes),
      (missing) => [...missing].map((classes) => [classes, collectedOn(classes, spec)] as const),
      { ...options, say: (line) => options.say?.(`bayes comparator: ${line}`) },
    );
    for (const session of group) collected.set(session, values.get(session.classes) as number);
  }
  return sessions.map((session) => {
    const value = collected.get(session);
    return value === undefined ? session : { ...session, bayesCollected: value };
  });
}

/**
 * B.5's fourth gate criterion's comparator: what the exact same-information
 * Bayes-optimal online policy under a symmetric Dirichlet(1) prior
 * (core/policies/bayes.ts) collects on each of the arm's streams, at its B
 * and K, by seed — as withBayesComparator kept it, else solved here. It knows
 * N, so it stands beside arms that disclosed it; null for one that did not.
 */
export function bayesComparator(arm: Arm): ReadonlyMap<number, number> | null {
  if (!arm.key.announceN) return null;
  return new Map(arm.loaded.map((session) => [session.spec.seed, session.bayesCollected ?? collectedOn(session.classes, session.spec)]));
}

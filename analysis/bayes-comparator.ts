import { FAMILY_NAMES } from '../core/families/family.js';
import { bayesRealized } from '../core/policies/bayes.js';
import { decodeClasses } from '../core/session/compact-codes.js';
import type { Arm } from './arms.js';
import type { Ladder } from './ladders.js';
import { valuesPerStream, type CacheOptions } from './stream-values-cache.js';

/** The Dirichlet(α) prior of the locked preregistration: uniform on the simplex. */
const ALPHA = 1;

/** Bump when policy/bayes's decisions change, so values computed before are not read. */
const CACHE_VERSION = 1;

/** What the comparator collects on each seed's stream of one gated arm. */
export type Comparator = ReadonlyMap<number, number>;

/**
 * B.5's fourth gate criterion's comparator for each ladder's R0 arm (the arm
 * the competence gate judges) that disclosed N (the comparator knows N): what
 * the exact same-information Bayes-optimal online policy under a symmetric
 * Dirichlet(1) prior (core/policies/bayes.ts) collects on each of the arm's
 * streams at its B and K, by seed. Its table takes seconds per setting, so
 * the values are kept on disk like the online optimum's
 * (analysis/stream-values-cache.ts).
 */
export async function bayesComparators(list: readonly Ladder[], cache: CacheOptions): Promise<ReadonlyMap<Arm, Comparator>> {
  const comparators = new Map<Arm, Comparator>();
  for (const arm of list.flatMap((ladder) => (ladder.rungs.R0 ? [ladder.rungs.R0] : []))) {
    if (!arm.key.announceN) continue;
    const { budget, charge } = arm.key;
    const comparator = new Map<number, number>();
    for (const horizon of new Set(arm.loaded.map((session) => session.classes.length))) {
      const sessions = arm.loaded.filter((session) => session.classes.length === horizon);
      const known = await valuesPerStream(
        `bayes-collected-v${CACHE_VERSION}/T${horizon}-B${budget}-K${charge}-N${FAMILY_NAMES.length}-alpha${ALPHA}`,
        sessions.map((session) => session.classes),
        (missing) =>
          [...missing].map(
            (classes) =>
              [
                classes,
                bayesRealized(decodeClasses(classes), { budget, charge, classCount: FAMILY_NAMES.length }, ALPHA).collected,
              ] as const,
          ),
        { ...cache, say: (line) => cache.say?.(`bayes comparator: ${line}`) },
      );
      for (const session of sessions) comparator.set(session.spec.seed, known.get(session.classes) as number);
    }
    comparators.set(arm, comparator);
  }
  return comparators;
}

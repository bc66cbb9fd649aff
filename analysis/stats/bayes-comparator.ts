import { FAMILY_NAMES } from '../../core/families/family.js';
import { bayesRealized } from '../../core/policies/bayes.js';
import { decodeClasses } from '../../core/session/compact-codes.js';
import type { Arm } from '../arms.js';

/** The Dirichlet(α) prior of the locked preregistration: uniform on the simplex. */
const ALPHA = 1;

/**
 * B.5's fourth gate criterion's comparator: what the exact same-information
 * Bayes-optimal online policy under a symmetric Dirichlet(1) prior
 * (core/policies/bayes.ts) collects on each of the arm's streams, at its B
 * and K, by seed. It knows N, so it stands beside arms that disclosed it;
 * null for one that did not.
 */
export function bayesComparator(arm: Arm): ReadonlyMap<number, number> | null {
  if (!arm.key.announceN) return null;
  const setting = { budget: arm.key.budget, charge: arm.key.charge, classCount: FAMILY_NAMES.length };
  return new Map(arm.loaded.map((session) => [session.spec.seed, bayesRealized(decodeClasses(session.classes), setting, ALPHA).collected]));
}

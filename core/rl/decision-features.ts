import { FAMILY_NAMES } from '../families/family.js';
import type { Observation } from '../session/observation.js';
import type { Action } from '../session/session-state.js';
import type { StreamConfig } from '../stream/stream-config.js';

/**
 * The critic's view of a decision (Appendix F, asymmetric critic): the
 * actor's state — the fraction of the stream elapsed, the fraction of the
 * budget left, the class's occurrences so far over T, and the other seen but
 * unkept classes over N — plus, privileged, the class's true draw rate, which
 * the actor never sees. A critic without the privilege drops the last.
 */
export interface DecisionFeatures {
  /** (t − 1) / T: the share of the stream before this item. */
  readonly elapsed: number;
  /** b_t / B. */
  readonly budgetLeft: number;
  /** Occurrences of this class so far, this one included, over T. */
  readonly occurrence: number;
  /** Seen classes other than this one that are not kept, over N. */
  readonly otherUnkept: number;
  /** Privileged: the class's generator rate (hot mass / hot count, or the trap share). */
  readonly rate: number;
}

/** The features in the order the critic's input takes them. */
export const FEATURE_NAMES = [
  'elapsed',
  'budgetLeft',
  'occurrence',
  'otherUnkept',
  'rate',
] as const satisfies readonly (keyof DecisionFeatures)[];

export function decisionFeatures(o: Observation, role: 'hot' | 'trap', config: StreamConfig): DecisionFeatures {
  const classCount = FAMILY_NAMES.length;
  let otherUnkept = 0;
  for (let label = 0; label < o.counts.length; label++) {
    if (label !== o.label && (o.counts[label] ?? 0) > 0 && !o.held.includes(label)) otherUnkept++;
  }
  return {
    elapsed: (o.turn - 1) / o.horizon,
    budgetLeft: o.remaining / o.budget,
    occurrence: o.occurrence / o.horizon,
    otherUnkept: otherUnkept / classCount,
    rate: role === 'hot' ? config.hotMass / config.hotCount : (1 - config.hotMass) / (classCount - config.hotCount),
  };
}

/**
 * Items a decision earns (the reward of Appendix F): a commit at the c-th of
 * its class's n occurrences collects n − c + 1 items, itself and every later
 * one; a pass earns nothing. Over an episode these sum to the items collected.
 */
export function decisionReward(classes: readonly number[], t: number, action: Action): number {
  if (action !== 'commit') return 0;
  const classId = classes[t - 1];
  let remaining = 0;
  for (let index = t - 1; index < classes.length; index++) if (classes[index] === classId) remaining++;
  return remaining;
}

import { FAMILY_NAMES } from '../families/family.js';
import { createRng, randomUnit, shuffle, substream, type Rng } from '../random/rng.js';
import type { StreamConfig } from './stream-config.js';

export type Role = 'hot' | 'trap';

/** The latent part of a stream: which family plays which role, and the class drawn at each turn. */
export interface ClassSequence {
  /** Family indices (into FAMILY_NAMES) in the hot role. */
  readonly hot: readonly number[];
  /** Family indices in the trap role. */
  readonly trap: readonly number[];
  /** Family index drawn at each turn, t = 1..T stored at 0..T-1. */
  readonly classes: Uint8Array;
  /** Generator for the instances, independent of how many rejection rounds were needed. */
  readonly instanceRng: Rng;
}

/** Upper bound on rejection rounds; at hotMass 0.85 and B = 3 about 2.6 rounds are expected. */
const MAX_REJECTIONS = 1_000_000;

/**
 * Paper §3.2 / B.1: permute the families into hot and trap roles, draw T classes
 * i.i.d. (hot mass shared equally among hots, the rest among traps), and redraw
 * the whole sequence until a trap occurs within the first B positions.
 */
export function drawClassSequence(seed: number, config: StreamConfig): ClassSequence {
  const rng = createRng(seed);
  const instanceRng = substream(rng);
  const order = shuffle(
    rng,
    FAMILY_NAMES.map((_, index) => index),
  );
  const hot = order.slice(0, config.hotCount);
  const trap = order.slice(config.hotCount);
  const hotRate = config.hotMass / hot.length;
  const trapRate = (1 - config.hotMass) / trap.length;
  const classes = new Uint8Array(config.length);
  for (let round = 0; round < MAX_REJECTIONS; round++) {
    let earlyTrap = false;
    for (let t = 0; t < config.length; t++) {
      const u = randomUnit(rng);
      const isHot = u < config.hotMass;
      const pool = isHot ? hot : trap;
      const slot = isHot ? Math.floor(u / hotRate) : Math.floor((u - config.hotMass) / trapRate);
      classes[t] = pool[Math.min(slot, pool.length - 1)] as number;
      if (!isHot && t < config.budget) earlyTrap = true;
    }
    if (earlyTrap) return { hot, trap, classes, instanceRng };
  }
  throw new Error(`no stream with a trap in the first ${config.budget} positions after ${MAX_REJECTIONS} rounds`);
}

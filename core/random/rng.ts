import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';

/**
 * The one source of randomness in the core: xoroshiro128+ from pure-rand.
 * Integer arithmetic only, so a seed gives the same sequence on every platform.
 * Generators are mutable; `jump()` splits off a non-overlapping substream.
 *
 * The 128-bit state comes from SHA-256 of the seed: pure-rand's own
 * `xoroshiro128plus(seed)` emits `~seed` as its first output, which would make
 * consecutive seeds (the 2000–2023 panel) start with correlated draws.
 */
export type Rng = JumpableRandomGenerator;

export const MAX_SEED = 0xffff_ffff;

export function createRng(seed: number): Rng {
  const digest = sha256(utf8ToBytes(`allocbench-rng:${seed}`));
  const view = new DataView(digest.buffer, digest.byteOffset, 16);
  const state = [0, 4, 8, 12].map((offset) => view.getInt32(offset));
  return xoroshiro128plusFromState(state);
}

/** A generator far ahead in the same sequence: `source` is left unchanged. */
export function substream(source: Rng): Rng {
  const child = source.clone();
  child.jump();
  return child;
}

/** Uniform integer in [low, high], both included. */
export function randomInt(rng: Rng, low: number, high: number): number {
  return uniformInt(rng, low, high);
}

/** Uniform double in [0, 1), a multiple of 2^-53. */
export function randomUnit(rng: Rng): number {
  return uniformFloat64(rng);
}

/** Fisher–Yates shuffle into a new array. */
export function shuffle<T>(rng: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(rng, 0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

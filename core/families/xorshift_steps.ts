import { z } from 'zod';
import { randomInt, type Rng } from '../random/rng.js';
import { defineFamily, integer, MAX_STEPS } from './family.js';

const inputs = z.strictObject({
  X: integer(0, 0xffff_ffff, 'the unsigned 32-bit register'),
  A: integer(1, 31, 'first left shift: X ^= X << A'),
  B: integer(1, 31, 'right shift (logical): X ^= X >> B'),
  C: integer(1, 31, 'second left shift: X ^= X << C'),
  K: integer(0, MAX_STEPS, 'number of rounds'),
});
type XorshiftInputs = z.infer<typeof inputs>;

const either = (rng: Rng, a: number, b: number): number => (randomInt(rng, 0, 1) === 0 ? a : b);

/**
 * Xorshift rounds on a 32-bit register: X ^= X << A; X ^= X >> B; X ^= X << C,
 * masked to 32 bits after each left shift (the right shift is logical).
 */
export const xorshift_steps = defineFamily<XorshiftInputs>({
  name: 'xorshift_steps',
  procedure: 'X ^= X<<A; X ^= X>>B; X ^= X<<C (32-bit, logical right shift) K times; the answer is X',
  inputs,
  // As the paper's harness, at every magnitude (a 32-bit register has nothing to scale):
  // X in [2^20, 2^32 - 1], A in {11, 13}, B in {7, 9}, C in {15, 17}, K in [12, 25].
  sample: (rng) => ({
    X: randomInt(rng, 2 ** 20, 0xffff_ffff),
    A: either(rng, 11, 13),
    B: either(rng, 7, 9),
    C: either(rng, 15, 17),
    K: randomInt(rng, 12, 25),
  }),
  // The first is the paper's shown instance (Appendix B.3), verbatim.
  covers: [
    ({ X, A, B, C, K }) =>
      `A 32-bit register holds X = ${X}. Repeat ${K} times: X ^= (X << ${A}); X ^= (X >> ${B}); X ^= (X << ${C}); keeping X masked to 32 bits (AND with 0xFFFFFFFF) after each left shift. Report the final X.`,
    ({ X, A, B, C, K }) =>
      `Treat ${X} as an unsigned 32-bit integer. One round does three updates in order: XOR it with a copy of itself shifted left by ${A} bits, then XOR it with a copy shifted right by ${B} bits, then XOR it with a copy shifted left by ${C} bits; bits pushed beyond bit 31 are dropped and zeros fill in. Run ${K} rounds and give the resulting unsigned value.`,
    ({ X, A, B, C, K }) =>
      `A hardware scrambler stores an unsigned 32-bit word, initially ${X}. One scrambling round XORs the word with itself shifted left by ${A} bits, then with itself shifted right by ${B} bits, then with itself shifted left by ${C} bits, discarding any bits above the 32nd after each left shift. What unsigned value does the word hold after ${K} rounds?`,
    ({ X, A, B, C, K }) =>
      `A game's random-number generator keeps an unsigned 32-bit state, currently ${X}. Each call updates it with state = state XOR (state << ${A}), then state = state XOR (state >> ${B}), then state = state XOR (state << ${C}), truncating to 32 bits after each left shift. What is the state after ${K} calls?`,
  ],
  solve: ({ X, A, B, C, K }) => {
    let state = X >>> 0;
    for (let i = 0; i < K; i++) {
      state = (state ^ (state << A)) >>> 0;
      state = (state ^ (state >>> B)) >>> 0;
      state = (state ^ (state << C)) >>> 0;
    }
    return BigInt(state);
  },
});

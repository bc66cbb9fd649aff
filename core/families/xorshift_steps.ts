import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_STEPS } from './family.js';

const shift = integer(1, 31, 'a shift amount in bits');
const inputs = z.strictObject({
  x: integer(0, 0xffff_ffff, 'the 32-bit register'),
  steps: integer(0, MAX_STEPS, 'number of rounds'),
  shifts: z.tuple([shift, shift, shift]).describe('[left1, right, left2] shift amounts'),
});
type XorshiftInputs = z.infer<typeof inputs>;

/**
 * Xorshift rounds on a 32-bit register: x ^= x << left1; x ^= x >> right; x ^= x << left2,
 * masked to 32 bits after each left shift (the right shift is logical).
 */
export const xorshift_steps = defineFamily<XorshiftInputs>({
  name: 'xorshift_steps',
  procedure: 'x ^= x<<l1; x ^= x>>r; x ^= x<<l2 (32-bit, logical right shift) `steps` times; the answer is x',
  inputs,
  // Magnitude M scales the round count: between M/10 and M/5 rounds.
  sample: (rng, magnitude) => ({
    x: randomInt(rng, 2 ** 24, 0xffff_ffff),
    steps: randomInt(rng, Math.ceil(magnitude / 10), Math.ceil(magnitude / 5)),
    shifts: [randomInt(rng, 3, 19), randomInt(rng, 3, 19), randomInt(rng, 3, 19)],
  }),
  covers: [
    ({ x, steps, shifts: [l1, r, l2] }) =>
      `A 32-bit register holds X = ${x}. Repeat ${steps} times: X ^= (X << ${l1}); X ^= (X >> ${r}); X ^= (X << ${l2}); keeping X masked to 32 bits (AND with 0xFFFFFFFF) after each left shift. Report the final X.`,
    ({ x, steps, shifts: [l1, r, l2] }) =>
      `A hardware scrambler stores an unsigned 32-bit word, initially ${x}. One scrambling round XORs the word with itself shifted left by ${l1} bits, then with itself shifted right by ${r} bits, then with itself shifted left by ${l2} bits, discarding any bits above the 32nd after each left shift. What unsigned value does the word hold after ${steps} rounds?`,
    ({ x, steps, shifts: [l1, r, l2] }) =>
      `A game's random-number generator keeps an unsigned 32-bit state, currently ${x}. Each call updates it with state = state XOR (state << ${l1}), then state = state XOR (state >> ${r}), then state = state XOR (state << ${l2}), truncating to 32 bits after each left shift. What is the state after ${steps} calls?`,
  ],
  solve: ({ x, steps, shifts: [l1, r, l2] }) => {
    let state = x >>> 0;
    for (let i = 0; i < steps; i++) {
      state = (state ^ (state << l1)) >>> 0;
      state = (state ^ (state >>> r)) >>> 0;
      state = (state ^ (state << l2)) >>> 0;
    }
    return state;
  },
});

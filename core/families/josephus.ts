import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer } from './family.js';

const inputs = z.strictObject({
  n: integer(1, 10_000_000, 'people in the circle, numbered 1..n'),
  k: integer(1, 10_000_000, 'every k-th remaining person is eliminated'),
});
type JosephusInputs = z.infer<typeof inputs>;

/** Josephus problem: survivor's 1-based position when every k-th of n is eliminated. */
export const josephus = defineFamily<JosephusInputs>({
  name: 'josephus',
  procedure: 'n in a circle, every k-th eliminated from person 1 onward; the answer is the survivor (1-based)',
  inputs,
  // Magnitude M: n in [M, 2M], k in [3, 12].
  sample: (rng, magnitude) => ({ n: randomInt(rng, magnitude, 2 * magnitude), k: randomInt(rng, 3, 12) }),
  covers: [
    ({ n, k }) =>
      `${n} people stand in a circle numbered 1..${n}. Counting around the circle, every ${k}-th person is eliminated (continuing past those already gone) until one remains. Report the position of the survivor.`,
    ({ n, k }) =>
      `${n} lanterns hang in a ring, labelled 1 to ${n}. Starting from lantern 1, a child counts only the lanterns still lit and blows out every ${k}-th one, going round and round the ring, until a single lantern stays lit. What is its label?`,
    ({ n, k }) =>
      `${n} cards numbered 1 to ${n} are laid out in a circle. Counting clockwise from card 1 and skipping cards already removed, every ${k}-th card is taken away until one card is left. What number is on the last card?`,
  ],
  // J(1) = 0, J(i) = (J(i-1) + k) mod i, 0-based.
  solve: ({ n, k }) => {
    let survivor = 0;
    for (let size = 2; size <= n; size++) survivor = (survivor + k) % size;
    return survivor + 1;
  },
});

import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer } from './family.js';

const inputs = z.strictObject({
  N: integer(1, 10_000_000, 'people in the circle, numbered 1..N'),
  K: integer(1, 10_000_000, 'every K-th remaining person is eliminated'),
});
type JosephusInputs = z.infer<typeof inputs>;

/** Josephus problem: survivor's 1-based position when every K-th of N is eliminated. */
export const josephus = defineFamily<JosephusInputs>({
  name: 'josephus',
  procedure: 'N in a circle, every K-th eliminated counting from person 1; the answer is the survivor (1-based)',
  inputs,
  // As the paper's harness: N in [max(10, floor(4M/5)), max(20, 2M)] at magnitude M ([80, 200] at
  // 100, [800, 2000] at 1000); K in [3, 9] at every magnitude.
  sample: (rng, magnitude) => ({
    N: randomInt(rng, Math.max(10, Math.floor((4 * magnitude) / 5)), Math.max(20, 2 * magnitude)),
    K: randomInt(rng, 3, 9),
  }),
  // The first is the paper's shown instance (Appendix B.3), verbatim.
  covers: [
    ({ N, K }) =>
      `${N} people stand in a circle numbered 1..${N}. Counting around the circle, every ${K}-th person is eliminated (continuing past those already gone) until one remains. Report the position of the survivor.`,
    ({ N, K }) =>
      `Players numbered 1 to ${N} sit around a round table. Starting the count at player 1 and skipping anyone already out, every ${K}-th player still seated is sent away, round after round, until a single player remains. What is that player's number?`,
    ({ N, K }) =>
      `${N} lanterns hang in a ring, labelled 1 to ${N}. Starting from lantern 1, a child counts only the lanterns still lit and blows out every ${K}-th one, going round and round the ring, until a single lantern stays lit. What is its label?`,
    ({ N, K }) =>
      `${N} cards numbered 1 to ${N} are laid out in a circle. Counting clockwise from card 1 and skipping cards already removed, every ${K}-th card is taken away until one card is left. What number is on the last card?`,
  ],
  // J(1) = 0, J(i) = (J(i-1) + K) mod i, 0-based.
  solve: ({ N, K }) => {
    let survivor = 0;
    for (let size = 2; size <= N; size++) survivor = (survivor + K) % size;
    return BigInt(survivor + 1);
  },
});

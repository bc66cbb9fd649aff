import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, MAX_STEPS } from './family.js';

const inputs = z.strictObject({
  SEED: integer(0, MAX_SAFE, 'starting value x_0'),
  A: integer(0, MAX_SAFE, 'multiplier a in x <- (a*x + b) mod m'),
  B: integer(0, MAX_SAFE, 'increment b in x <- (a*x + b) mod m'),
  M: integer(1, MAX_SAFE, 'modulus m'),
  K: integer(0, MAX_STEPS, 'number of updates x <- (a*x + b) mod m'),
});
type LcgInputs = z.infer<typeof inputs>;

/** Linear congruential generator: x <- (A*x + B) mod M, K times from SEED; report x. */
export const lcg = defineFamily<LcgInputs>({
  name: 'lcg',
  procedure: 'x <- (A*x + B) mod M applied K times from x = SEED; the answer is the final x',
  inputs,
  // As the paper's harness: SEED in [50, 300] at every magnitude; A, B and M are multiples of the
  // magnitude M: A = M*[2, 30], B = M*[1, 30], modulus = M*[300, 1200]; K in [6, 12].
  sample: (rng, magnitude) => ({
    SEED: randomInt(rng, 50, 300),
    A: magnitude * randomInt(rng, 2, 30),
    B: magnitude * randomInt(rng, 1, 30),
    M: magnitude * randomInt(rng, 300, 1200),
    K: randomInt(rng, 6, 12),
  }),
  // The first three are the paper's own lcg covers (Appendix B.3), verbatim.
  covers: [
    ({ SEED, A, B, M, K }) =>
      `Initialize s = ${SEED}. Repeat the following ${K} times: s = (${A} * s + ${B}) % ${M}. Give the resulting value of s.`,
    ({ SEED, A, B, M, K }) =>
      `A pseudorandom counter begins at ${SEED}. For ${K} rounds, set X = (${A} * X + ${B}) mod ${M}. What is X after the final round?`,
    ({ SEED, A, B, M, K }) =>
      `A register starts at X = ${SEED}. It is updated ${K} times; each update replaces X with ((${A} * X) + ${B}) mod ${M}. Report the final value of X.`,
    ({ SEED, A, B, M, K }) =>
      `Let x = ${SEED}. Apply the update x -> (${A} * x + ${B}) mod ${M} exactly ${K} times, feeding each result into the next update, and report the value of x after the last update.`,
    ({ SEED, A, B, M, K }) =>
      `A ticket machine stamps a serial code. Its starting code is ${SEED}. Each time a ticket is issued, the machine multiplies the current code by ${A}, adds ${B}, and keeps only the remainder after division by ${M} as the new code. What is the code after ${K} tickets have been issued?`,
    ({ SEED, A, B, M, K }) =>
      `A lighthouse keeper keeps a code word in the log. The entry made on the night the keeper arrived is ${SEED}. On each of the next ${K} nights the keeper takes the latest entry, multiplies it by ${A}, adds ${B}, and writes down only the remainder after dividing by ${M}. What is the last entry written?`,
  ],
  solve: ({ SEED, A, B, M, K }) => {
    const [a, b, m] = [BigInt(A), BigInt(B), BigInt(M)];
    let x = BigInt(SEED) % m;
    for (let i = 0; i < K; i++) x = (a * x + b) % m;
    return x;
  },
});

import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, MAX_STEPS, scaled } from './family.js';

const inputs = z.strictObject({
  X: integer(0, MAX_SAFE, 'starting value x_0'),
  C: integer(0, MAX_SAFE, 'constant c added after squaring'),
  MOD: integer(1, MAX_SAFE, 'modulus m'),
  K: integer(0, MAX_STEPS, 'number of updates x <- (x*x + c) mod m'),
});
type QuadraticMapInputs = z.infer<typeof inputs>;

/** Iterated quadratic map: x <- (x^2 + C) mod MOD, K times from X; report x. */
export const quadratic_map_mod = defineFamily<QuadraticMapInputs>({
  name: 'quadratic_map_mod',
  procedure: 'x <- (x^2 + C) mod MOD applied K times from x = X; the answer is the final x',
  inputs,
  // As the paper's harness: X, C and MOD each in [137M, 9973M] at magnitude M (independently, so X
  // and C often exceed MOD); K in [15, 30] at every magnitude.
  sample: (rng, magnitude) => ({
    X: scaled(rng, magnitude),
    C: scaled(rng, magnitude),
    MOD: scaled(rng, magnitude),
    K: randomInt(rng, 15, 30),
  }),
  covers: [
    ({ X, C, MOD, K }) =>
      `Define f(x) = (x^2 + ${C}) mod ${MOD}. Starting from x = ${X}, apply f ${K} times in a row, each time to the previous result. What number do you end with?`,
    ({ X, C, MOD, K }) =>
      `A seed value of ${X} is fed through a mixing step ${K} times. Each step squares the current value, adds ${C}, and reduces the result modulo ${MOD}. What value comes out after the last step?`,
    ({ X, C, MOD, K }) =>
      `In a board game a token's score starts at ${X}. Every turn the score is replaced by the remainder of (score squared plus ${C}) divided by ${MOD}. What is the score after ${K} turns?`,
  ],
  solve: ({ X, C, MOD, K }) => {
    const [c, m] = [BigInt(C), BigInt(MOD)];
    let x = BigInt(X) % m;
    for (let i = 0; i < K; i++) x = (x * x + c) % m;
    return x;
  },
});

import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, MAX_STEPS } from './family.js';

const inputs = z.strictObject({
  x0: integer(0, MAX_SAFE, 'starting value x_0'),
  c: integer(0, MAX_SAFE, 'constant added after squaring'),
  m: integer(1, MAX_SAFE, 'modulus'),
  steps: integer(0, MAX_STEPS, 'number of updates x <- (x*x + c) mod m'),
});
type QuadraticMapInputs = z.infer<typeof inputs>;

/** Iterated quadratic map: x <- (x^2 + c) mod m, `steps` times; report x. */
export const quadratic_map_mod = defineFamily<QuadraticMapInputs>({
  name: 'quadratic_map_mod',
  procedure: 'x <- (x^2 + c) mod m applied `steps` times from x0; the answer is the final x',
  inputs,
  // Magnitude M: x0 and c up to 10M, m in [1000M, 10000M], 10–25 steps.
  sample: (rng, magnitude) => ({
    x0: randomInt(rng, 2, 10 * magnitude),
    c: randomInt(rng, 1, 10 * magnitude),
    m: randomInt(rng, 1000 * magnitude, 10_000 * magnitude),
    steps: randomInt(rng, 10, 25),
  }),
  covers: [
    ({ x0, c, m, steps }) => `Start with x = ${x0}. Repeat ${steps} times: x = (x * x + ${c}) mod ${m}. Report the final x.`,
    ({ x0, c, m, steps }) =>
      `A seed value of ${x0} is fed through a mixing step ${steps} times. Each step squares the current value, adds ${c}, and reduces the result modulo ${m}. What value comes out after the last step?`,
    ({ x0, c, m, steps }) =>
      `In a board game a token's score starts at ${x0}. Every turn the score is replaced by the remainder of (score squared plus ${c}) divided by ${m}. What is the score after ${steps} turns?`,
  ],
  solve: ({ x0, c, m, steps }) => {
    const [C, M] = [BigInt(c), BigInt(m)];
    let x = BigInt(x0) % M;
    for (let i = 0; i < steps; i++) x = (x * x + C) % M;
    return Number(x);
  },
});

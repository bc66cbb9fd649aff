import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, MAX_STEPS } from './family.js';

const inputs = z.strictObject({
  x0: integer(0, MAX_SAFE, 'starting value x_0'),
  a: integer(0, MAX_SAFE, 'multiplier'),
  c: integer(0, MAX_SAFE, 'increment'),
  m: integer(1, MAX_SAFE, 'modulus'),
  steps: integer(0, MAX_STEPS, 'number of updates x <- (a*x + c) mod m'),
});
type LcgInputs = z.infer<typeof inputs>;

/** Linear congruential generator: x <- (a*x + c) mod m, `steps` times; report x. */
export const lcg = defineFamily<LcgInputs>({
  name: 'lcg',
  procedure: 'x <- (a*x + c) mod m applied `steps` times from x0; the answer is the final x',
  inputs,
  // Magnitude M scales a, c and m (a, c ~ 100M..999M; m ~ 10^5 M..3*10^5 M), as in the paper's covers.
  sample: (rng, magnitude) => ({
    x0: randomInt(rng, magnitude, 3 * magnitude),
    a: magnitude * randomInt(rng, 100, 999),
    c: magnitude * randomInt(rng, 100, 999),
    m: magnitude * randomInt(rng, 100_000, 300_000),
    steps: randomInt(rng, 20, 30),
  }),
  covers: [
    ({ x0, a, c, m, steps }) =>
      `Initialize s = ${x0}. Repeat the following ${steps} times: s = (${a} * s + ${c}) % ${m}. Give the resulting value of s.`,
    ({ x0, a, c, m, steps }) =>
      `A pseudorandom counter begins at ${x0}. For ${steps} rounds, set X = (${a} * X + ${c}) mod ${m}. What is X after the final round?`,
    ({ x0, a, c, m, steps }) =>
      `A register starts at X = ${x0}. It is updated ${steps} times; each update replaces X with ((${a} * X) + ${c}) mod ${m}. Report the final value of X.`,
    ({ x0, a, c, m, steps }) =>
      `A lighthouse keeper writes a code word in the log every night. The first entry is ${x0}. Each night the keeper multiplies the previous entry by ${a}, adds ${c}, and writes down only the remainder after dividing by ${m}. What is the entry written on night ${steps}?`,
  ],
  solve: ({ x0, a, c, m, steps }) => {
    const [A, C, M] = [BigInt(a), BigInt(c), BigInt(m)];
    let x = BigInt(x0) % M;
    for (let i = 0; i < steps; i++) x = (A * x + C) % M;
    return Number(x);
  },
});

import { z } from 'zod';
import { gcd, isPrime, modInverse } from '../math/number-theory.js';
import { randomInt, type Rng } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE } from './family.js';

const inputs = z
  .strictObject({
    REMAINDERS: z
      .array(integer(0, MAX_SAFE, 'a remainder r_i'))
      .min(1)
      .max(64)
      .describe('remainders r_i: x leaves r_i when divided by the i-th modulus'),
    MODULI: z
      .array(integer(2, MAX_SAFE, 'a modulus m_i'))
      .min(1)
      .max(64)
      .describe('pairwise coprime moduli m_i, one per remainder'),
  })
  .refine(({ REMAINDERS, MODULI }) => REMAINDERS.length === MODULI.length, {
    message: 'REMAINDERS and MODULI must have the same length',
    path: ['MODULI'],
  })
  .refine(({ REMAINDERS, MODULI }) => REMAINDERS.every((r, i) => r < (MODULI[i] ?? Infinity)), {
    message: 'each remainder must be below its modulus',
    path: ['REMAINDERS'],
  })
  .refine(({ MODULI }) => MODULI.every((m, i) => MODULI.slice(i + 1).every((n) => gcd(m, n) === 1)), {
    message: 'moduli must be pairwise coprime',
    path: ['MODULI'],
  });
type CrtInputs = z.infer<typeof inputs>;

/** The paper harness's modulus pool: every prime in [101, 2999] (405 of them). */
const PRIMES = Array.from({ length: 3000 - 101 }, (_, i) => 101 + i).filter(isPrime);

/** `count` distinct primes of the pool, each uniformly likely. */
function distinctPrimes(rng: Rng, count: number): number[] {
  const picked: number[] = [];
  while (picked.length < count) {
    const prime = PRIMES[randomInt(rng, 0, PRIMES.length - 1)] as number;
    if (!picked.includes(prime)) picked.push(prime);
  }
  return picked;
}

/** Chinese remainder theorem: least non-negative x with x = r_i (mod m_i) for all i. */
export const crt_solve = defineFamily<CrtInputs>({
  name: 'crt_solve',
  procedure: 'least non-negative x with x = r_i (mod m_i) for pairwise coprime m_i',
  inputs,
  // As the paper's harness: distinct primes drawn uniformly from [101, 2999] at every magnitude;
  // their count grows with the magnitude M: n or n + 1 with n = 4 + max(0, floor((M - 100) / 300))
  // (4–5 at 100, 7–8 at 1000); each remainder uniform in [0, m_i - 1].
  sample: (rng, magnitude) => {
    const fewest = 4 + Math.max(0, Math.floor((magnitude - 100) / 300));
    const count = randomInt(rng, fewest, Math.min(fewest + 1, PRIMES.length));
    const MODULI = distinctPrimes(rng, count);
    return { REMAINDERS: MODULI.map((m) => randomInt(rng, 0, m - 1)), MODULI };
  },
  // The first is the paper's shown instance (Appendix B.3), verbatim.
  covers: [
    ({ REMAINDERS, MODULI }) =>
      `Solve the system of congruences: x is congruent to [${REMAINDERS.join(', ')}] modulo [${MODULI.join(', ')}] respectively (the moduli are pairwise coprime). Give the least non-negative x.`,
    ({ REMAINDERS, MODULI }) =>
      `Find the least non-negative integer x such that ${MODULI.map((m, i) => `x mod ${m} = ${REMAINDERS[i]}`).join(', ')}. The moduli ${MODULI.join(', ')} share no common factor in pairs.`,
    ({ REMAINDERS, MODULI }) =>
      `A general counts her soldiers by lining them up in rows. ${MODULI.map((m, i) => `In rows of ${m}, exactly ${REMAINDERS[i]} soldiers are left over.`).join(' ')} What is the smallest non-negative number of soldiers consistent with all of these counts?`,
    ({ REMAINDERS, MODULI }) =>
      `Several beacons blink on fixed cycles of ${MODULI.join(', ')} seconds (no two cycle lengths share a common factor). Find the earliest time t >= 0, in whole seconds, at which ${MODULI.map((m, i) => `t leaves remainder ${REMAINDERS[i]} when divided by ${m}`).join(', ')}.`,
  ],
  solve: ({ REMAINDERS, MODULI }) => {
    const total = MODULI.reduce((acc, m) => acc * BigInt(m), 1n);
    let x = 0n;
    MODULI.forEach((m, i) => {
      const modulus = BigInt(m);
      const rest = total / modulus;
      x += BigInt(REMAINDERS[i] as number) * rest * modInverse(rest % modulus, modulus);
    });
    return x % total;
  },
});

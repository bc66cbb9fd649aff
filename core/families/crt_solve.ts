import { z } from 'zod';
import { gcd, isPrime, modInverse } from '../math/number-theory.js';
import { randomInt, type Rng } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE } from './family.js';

const inputs = z
  .strictObject({
    residues: z
      .array(integer(0, MAX_SAFE, 'a residue r_i'))
      .min(1)
      .max(12)
      .describe('residues r_i'),
    moduli: z
      .array(integer(2, MAX_SAFE, 'a modulus m_i'))
      .min(1)
      .max(12)
      .describe('pairwise coprime moduli m_i'),
  })
  .refine(({ residues, moduli }) => residues.length === moduli.length, {
    message: 'residues and moduli must have the same length',
    path: ['moduli'],
  })
  .refine(({ moduli }) => moduli.every((m, i) => moduli.slice(i + 1).every((n) => gcd(m, n) === 1)), {
    message: 'moduli must be pairwise coprime',
    path: ['moduli'],
  })
  .refine(({ moduli }) => product(moduli) <= BigInt(MAX_SAFE), {
    message: 'the product of the moduli must stay below 2^53',
    path: ['moduli'],
  });
type CrtInputs = z.infer<typeof inputs>;

function product(values: readonly number[]): bigint {
  return values.reduce((acc, v) => acc * BigInt(v), 1n);
}

function distinctPrimes(rng: Rng, count: number, low: number, high: number): number[] {
  const primes: number[] = [];
  while (primes.length < count) {
    const candidate = randomInt(rng, low, high);
    if (isPrime(candidate) && !primes.includes(candidate)) primes.push(candidate);
  }
  return primes;
}

/** Chinese remainder theorem: least non-negative x with x = r_i (mod m_i) for all i. */
export const crt_solve = defineFamily<CrtInputs>({
  name: 'crt_solve',
  procedure: 'least non-negative x with x = r_i (mod m_i) for pairwise coprime m_i',
  inputs,
  // Magnitude M: prime moduli in [4M, 21M]; four of them, or fewer where the product would pass 2^53.
  sample: (rng, magnitude) => {
    const [low, high] = [4 * magnitude, 21 * magnitude];
    let count = 4;
    while (count > 2 && high ** count > MAX_SAFE) count--;
    const moduli = distinctPrimes(rng, count, low, high);
    return { residues: moduli.map((m) => randomInt(rng, 0, m - 1)), moduli };
  },
  covers: [
    ({ residues, moduli }) =>
      `Solve the system of congruences: x is congruent to [${residues.join(', ')}] modulo [${moduli.join(', ')}] respectively (the moduli are pairwise coprime). Give the least non-negative x.`,
    ({ residues, moduli }) =>
      `A general counts her soldiers by lining them up in rows. ${moduli
        .map((m, i) => `In rows of ${m}, exactly ${residues[i]} soldiers are left over.`)
        .join(' ')} What is the smallest non-negative number of soldiers consistent with all of these counts?`,
    ({ residues, moduli }) =>
      `Several beacons blink on fixed cycles of ${moduli.join(', ')} seconds (no two cycle lengths share a common factor). Find the earliest time t >= 0, in whole seconds, at which ${moduli
        .map((m, i) => `t leaves remainder ${residues[i]} when divided by ${m}`)
        .join(', ')}.`,
  ],
  solve: ({ residues, moduli }) => {
    const total = product(moduli);
    let x = 0n;
    moduli.forEach((m, i) => {
      const modulus = BigInt(m);
      const rest = total / modulus;
      x += BigInt(residues[i] as number) * rest * modInverse(rest % modulus, modulus);
    });
    return Number(x % total);
  },
});

import { z } from 'zod';
import { powMod } from '../math/number-theory.js';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE } from './family.js';

const inputs = z.strictObject({
  base: integer(0, MAX_SAFE, 'the base b'),
  exponent: integer(0, MAX_SAFE, 'the exponent e'),
  modulus: integer(1, MAX_SAFE, 'the modulus m'),
});
type ModpowInputs = z.infer<typeof inputs>;

/** Modular exponentiation: base^exponent mod modulus. */
export const modpow = defineFamily<ModpowInputs>({
  name: 'modpow',
  procedure: 'b^e mod m',
  inputs,
  // Magnitude M: base up to 100M, exponent 100M..1000M, modulus 1000M..10000M.
  sample: (rng, magnitude) => ({
    base: randomInt(rng, 2, 100 * magnitude),
    exponent: randomInt(rng, 100 * magnitude, 1000 * magnitude),
    modulus: randomInt(rng, 1000 * magnitude, 10_000 * magnitude),
  }),
  covers: [
    ({ base, exponent, modulus }) => `Compute the remainder when ${base} raised to the power ${exponent} is divided by ${modulus}.`,
    ({ base, exponent, modulus }) =>
      `A vault's lock code is made by multiplying together ${exponent} copies of the number ${base} (that is, ${base}^${exponent}) and keeping only the remainder modulo ${modulus}. What is the code?`,
    ({ base, exponent, modulus }) =>
      `A ledger starts with a balance of 1. Every cycle the balance is multiplied by ${base}, and the ledger only keeps the balance modulo ${modulus}. What does the ledger show after ${exponent} cycles?`,
  ],
  solve: ({ base, exponent, modulus }) => Number(powMod(BigInt(base), BigInt(exponent), BigInt(modulus))),
});

import { z } from 'zod';
import { powMod } from '../math/number-theory.js';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, scaled } from './family.js';

const inputs = z.strictObject({
  BASE: integer(0, MAX_SAFE, 'the base b'),
  EXP: integer(0, MAX_SAFE, 'the exponent e'),
  MOD: integer(1, MAX_SAFE, 'the modulus m'),
});
type ModpowInputs = z.infer<typeof inputs>;

/** Modular exponentiation: BASE^EXP mod MOD. */
export const modpow = defineFamily<ModpowInputs>({
  name: 'modpow',
  procedure: 'BASE^EXP mod MOD',
  inputs,
  // As the paper's harness: BASE and MOD in [137M, 9973M] at magnitude M (independently, so BASE
  // often exceeds MOD); EXP in [max(10, floor(M/8)), max(30, floor(M/3))], i.e. [12, 33] at 100.
  sample: (rng, magnitude) => ({
    BASE: scaled(rng, magnitude),
    EXP: randomInt(rng, Math.max(10, Math.floor(magnitude / 8)), Math.max(30, Math.floor(magnitude / 3))),
    MOD: scaled(rng, magnitude),
  }),
  covers: [
    ({ BASE, EXP, MOD }) => `Multiply ${EXP} copies of ${BASE} together and divide the product by ${MOD}. What remainder is left over?`,
    ({ BASE, EXP, MOD }) =>
      `A vault's lock code is made by multiplying together ${EXP} copies of the number ${BASE} (that is, ${BASE}^${EXP}) and keeping only the remainder modulo ${MOD}. What is the code?`,
    ({ BASE, EXP, MOD }) =>
      `A ledger starts with a balance of 1. Every cycle the balance is multiplied by ${BASE}, and the ledger only keeps the balance modulo ${MOD}. What does the ledger show after ${EXP} cycles?`,
  ],
  solve: ({ BASE, EXP, MOD }) => powMod(BigInt(BASE), BigInt(EXP), BigInt(MOD)),
});

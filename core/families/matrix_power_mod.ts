import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE } from './family.js';

const entry = integer(0, MAX_SAFE, 'a matrix entry');
const inputs = z.strictObject({
  matrix: z.tuple([z.tuple([entry, entry]), z.tuple([entry, entry])]).describe('2x2 matrix [[a, b], [c, d]]'),
  exponent: integer(0, MAX_SAFE, 'the power e'),
  modulus: integer(1, MAX_SAFE, 'the modulus m'),
});
type MatrixPowerInputs = z.infer<typeof inputs>;

type Matrix = readonly [readonly [bigint, bigint], readonly [bigint, bigint]];

function multiply(x: Matrix, y: Matrix, m: bigint): Matrix {
  const [[a, b], [c, d]] = x;
  const [[e, f], [g, h]] = y;
  return [
    [(a * e + b * g) % m, (a * f + b * h) % m],
    [(c * e + d * g) % m, (c * f + d * h) % m],
  ];
}

/** Modular matrix power: the top-left entry of A^e mod m for a 2x2 matrix A. */
export const matrix_power_mod = defineFamily<MatrixPowerInputs>({
  name: 'matrix_power_mod',
  procedure: 'top-left entry of [[a, b], [c, d]]^e with entries reduced mod m',
  inputs,
  // Magnitude M: entries in [1, 10M], exponent in [10M, 100M], modulus in [100M, 1000M].
  sample: (rng, magnitude) => {
    const value = () => randomInt(rng, 1, 10 * magnitude);
    return {
      matrix: [
        [value(), value()],
        [value(), value()],
      ],
      exponent: randomInt(rng, 10 * magnitude, 100 * magnitude),
      modulus: randomInt(rng, 100 * magnitude, 1000 * magnitude),
    };
  },
  covers: [
    ({ matrix: [[a, b], [c, d]], exponent, modulus }) =>
      `Let A = [[${a}, ${b}], [${c}, ${d}]]. Compute A^${exponent} with every entry reduced modulo ${modulus}, and report the top-left entry.`,
    ({ matrix: [[a, b], [c, d]], exponent, modulus }) =>
      `A population model tracks juveniles J and adults A, starting from J = 1 and A = 0. Each season both update at once: new J = ${a}*J + ${b}*A and new A = ${c}*J + ${d}*A, with counts recorded modulo ${modulus}. What is J after ${exponent} seasons?`,
    ({ matrix: [[a, b], [c, d]], exponent, modulus }) =>
      `A two-register machine holds (P, Q) = (1, 0). On every tick it simultaneously sets P := (${a}*P + ${b}*Q) mod ${modulus} and Q := (${c}*P + ${d}*Q) mod ${modulus}. What is P after ${exponent} ticks?`,
  ],
  solve: ({ matrix: [[a, b], [c, d]], exponent, modulus }) => {
    const m = BigInt(modulus);
    let result: Matrix = [
      [1n % m, 0n],
      [0n, 1n % m],
    ];
    let power: Matrix = [
      [BigInt(a) % m, BigInt(b) % m],
      [BigInt(c) % m, BigInt(d) % m],
    ];
    for (let e = BigInt(exponent); e > 0n; e >>= 1n) {
      if (e & 1n) result = multiply(result, power, m);
      power = multiply(power, power, m);
    }
    return Number(result[0][0]);
  },
});

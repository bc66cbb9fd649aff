import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE, scaled } from './family.js';

const inputs = z.strictObject({
  A: integer(0, MAX_SAFE, 'top-left entry a of M = [[a, b], [c, d]]'),
  B: integer(0, MAX_SAFE, 'top-right entry b of M = [[a, b], [c, d]]'),
  C: integer(0, MAX_SAFE, 'bottom-left entry c of M = [[a, b], [c, d]]'),
  D: integer(0, MAX_SAFE, 'bottom-right entry d of M = [[a, b], [c, d]]'),
  MOD: integer(1, MAX_SAFE, 'the modulus m'),
  K: integer(0, MAX_SAFE, 'the power: M^K is the product of K copies of M'),
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

/** Modular matrix power: the sum of the four entries of M^K, mod MOD, for M = [[A, B], [C, D]]. */
export const matrix_power_mod = defineFamily<MatrixPowerInputs>({
  name: 'matrix_power_mod',
  procedure: 'the four entries of [[A, B], [C, D]]^K (entries reduced mod MOD) summed, the sum reduced mod MOD',
  inputs,
  // As the paper's harness: entries in [2, 40] and K in [25, 45] at every magnitude; MOD in
  // [137M, 9973M] at magnitude M.
  sample: (rng, magnitude) => ({
    A: randomInt(rng, 2, 40),
    B: randomInt(rng, 2, 40),
    C: randomInt(rng, 2, 40),
    D: randomInt(rng, 2, 40),
    MOD: scaled(rng, magnitude),
    K: randomInt(rng, 25, 45),
  }),
  covers: [
    ({ A, B, C, D, MOD, K }) =>
      `Take the 2x2 matrix with rows (${A}, ${B}) and (${C}, ${D}) and multiply ${K} copies of it together, reducing every entry modulo ${MOD} along the way. Add up all four entries of the resulting matrix and report that total modulo ${MOD}.`,
    ({ A, B, C, D, MOD, K }) =>
      `A courier works between two depots, North and South. On any day there are ${A} routes from North to North, ${B} from North to South, ${C} from South to North and ${D} from South to South. A ${K}-day itinerary picks one route per day, each day starting where the previous one ended; it may start at either depot and end at either. How many different ${K}-day itineraries are there in total? Give the count modulo ${MOD}.`,
    ({ A, B, C, D, MOD, K }) =>
      `In a linear-algebra exercise, T = [[${A}, ${B}], [${C}, ${D}]]. Compute T^${K} with all arithmetic done modulo ${MOD}, then give (sum of the four entries of T^${K}) mod ${MOD}.`,
  ],
  solve: ({ A, B, C, D, MOD, K }) => {
    const m = BigInt(MOD);
    let result: Matrix = [
      [1n % m, 0n],
      [0n, 1n % m],
    ];
    let power: Matrix = [
      [BigInt(A) % m, BigInt(B) % m],
      [BigInt(C) % m, BigInt(D) % m],
    ];
    for (let e = BigInt(K); e > 0n; e >>= 1n) {
      if (e & 1n) result = multiply(result, power, m);
      power = multiply(power, power, m);
    }
    const [[a, b], [c, d]] = result;
    return (a + b + c + d) % m;
  },
});

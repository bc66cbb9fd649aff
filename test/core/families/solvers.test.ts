import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getFamily } from '../../../core/families/registry.js';

/*
 * Each gold solver against an independent naive implementation (a different
 * algorithm or plain iteration) on many random instances.
 */

const solve = (family: string, inputs: Record<string, unknown>) => {
  const f = getFamily(family);
  return f.solve(f.parseInputs(inputs));
};

const runs = { numRuns: 300 };

describe('gold solvers against naive references', () => {
  it('lcg: closed-form affine power (x -> a^n x + c(1 + a + ... + a^(n-1)))', () => {
    const naive = (x0: bigint, a: bigint, c: bigint, m: bigint, steps: number) => {
      // Compose the affine map by repeated squaring: (A, C) means x -> A x + C.
      let [resultA, resultC] = [1n, 0n];
      let [powerA, powerC] = [a % m, c % m];
      for (let n = steps; n > 0; n >>= 1) {
        if (n & 1) [resultA, resultC] = [(powerA * resultA) % m, (powerA * resultC + powerC) % m];
        [powerA, powerC] = [(powerA * powerA) % m, (powerA * powerC + powerC) % m];
      }
      return Number((resultA * (x0 % m) + resultC) % m);
    };
    fc.assert(
      fc.property(
        fc.record({
          x0: fc.integer({ min: 0, max: 2 ** 40 }),
          a: fc.integer({ min: 0, max: 2 ** 40 }),
          c: fc.integer({ min: 0, max: 2 ** 40 }),
          m: fc.integer({ min: 1, max: 2 ** 45 }),
          steps: fc.integer({ min: 0, max: 400 }),
        }),
        (inputs) => {
          const { x0, a, c, m, steps } = inputs;
          expect(solve('lcg', inputs)).toBe(naive(BigInt(x0), BigInt(a), BigInt(c), BigInt(m), steps));
        },
      ),
      runs,
    );
  });

  it('modpow: repeated multiplication', () => {
    fc.assert(
      fc.property(
        fc.record({
          base: fc.integer({ min: 0, max: 2 ** 40 }),
          exponent: fc.integer({ min: 0, max: 3000 }),
          modulus: fc.integer({ min: 1, max: 2 ** 40 }),
        }),
        (inputs) => {
          const m = BigInt(inputs.modulus);
          let product = 1n % m;
          for (let i = 0; i < inputs.exponent; i++) product = (product * BigInt(inputs.base)) % m;
          expect(solve('modpow', inputs)).toBe(Number(product));
        },
      ),
      runs,
    );
  });

  it('continued_frac: evaluate from the innermost term with reduced fractions', () => {
    const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.array(fc.integer({ min: 1, max: 500 }), { maxLength: 5 }), (first, rest) => {
        const terms = [first, ...rest];
        // value = a_last; then value = a_i + 1 / value, as p/q, reducing each time.
        let [p, q] = [BigInt(terms.at(-1) as number), 1n];
        for (const term of terms.slice(0, -1).reverse()) {
          [p, q] = [BigInt(term) * p + q, p];
          const g = gcd(p, q);
          [p, q] = [p / g, q / g];
        }
        expect(solve('continued_frac', { terms })).toBe(Number(p));
      }),
      runs,
    );
  });

  it('crt_solve: search for the least x satisfying every congruence', () => {
    const smallPrimes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    fc.assert(
      fc.property(
        fc
          .subarray(smallPrimes, { minLength: 1, maxLength: 4 })
          .chain((moduli) => fc.tuple(fc.constant(moduli), fc.tuple(...moduli.map((m) => fc.integer({ min: 0, max: 3 * m }))))),
        ([moduli, residues]) => {
          const product = moduli.reduce((a, b) => a * b, 1);
          let x = 0;
          while (x < product && !moduli.every((m, i) => x % m === (residues[i] as number) % m)) x++;
          expect(solve('crt_solve', { residues, moduli })).toBe(x);
        },
      ),
      runs,
    );
  });

  it('josephus: eliminate people from an explicit circle', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 40 }), (n, k) => {
        const circle = Array.from({ length: n }, (_, i) => i + 1);
        let index = 0;
        while (circle.length > 1) {
          index = (index + k - 1) % circle.length;
          circle.splice(index, 1);
        }
        expect(solve('josephus', { n, k })).toBe(circle[0]);
      }),
      runs,
    );
  });

  it('quadratic_map_mod: plain Number iteration where x*x stays exact', () => {
    fc.assert(
      fc.property(
        fc.record({
          x0: fc.integer({ min: 0, max: 2 ** 25 }),
          c: fc.integer({ min: 0, max: 2 ** 25 }),
          m: fc.integer({ min: 1, max: 2 ** 25 }),
          steps: fc.integer({ min: 0, max: 200 }),
        }),
        (inputs) => {
          let x = inputs.x0 % inputs.m;
          for (let i = 0; i < inputs.steps; i++) x = (x * x + inputs.c) % inputs.m;
          expect(solve('quadratic_map_mod', inputs)).toBe(x);
        },
      ),
      runs,
    );
  });

  it('xorshift_steps: BigInt shifts with an explicit 32-bit mask', () => {
    const mask = 0xffff_ffffn;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffff_ffff }),
        fc.integer({ min: 0, max: 200 }),
        fc.tuple(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 1, max: 31 }), fc.integer({ min: 1, max: 31 })),
        (x, steps, shifts) => {
          const [l1, r, l2] = shifts.map(BigInt) as [bigint, bigint, bigint];
          let state = BigInt(x);
          for (let i = 0; i < steps; i++) {
            state ^= (state << l1) & mask;
            state ^= state >> r;
            state ^= (state << l2) & mask;
          }
          expect(solve('xorshift_steps', { x, steps, shifts })).toBe(Number(state));
        },
      ),
      runs,
    );
  });

  it('matrix_power_mod: step the (P, Q) registers one tick at a time', () => {
    const entry = fc.integer({ min: 0, max: 2 ** 30 });
    fc.assert(
      fc.property(
        fc.tuple(entry, entry, entry, entry),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        ([a, b, c, d], exponent, modulus) => {
          const m = BigInt(modulus);
          let [p, q] = [1n % m, 0n];
          for (let i = 0; i < exponent; i++) [p, q] = [(BigInt(a) * p + BigInt(b) * q) % m, (BigInt(c) * p + BigInt(d) * q) % m];
          const inputs = {
            matrix: [
              [a, b],
              [c, d],
            ],
            exponent,
            modulus,
          };
          expect(solve('matrix_power_mod', inputs)).toBe(Number(p));
        },
      ),
      runs,
    );
  });
});

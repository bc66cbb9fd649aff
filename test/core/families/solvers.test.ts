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
  it('lcg: closed-form affine power (x -> a^n x + b(1 + a + ... + a^(n-1)))', () => {
    const naive = (x0: bigint, a: bigint, b: bigint, m: bigint, steps: number) => {
      // Compose the affine map by repeated squaring: (A, B) means x -> A x + B.
      let [resultA, resultB] = [1n, 0n];
      let [powerA, powerB] = [a % m, b % m];
      for (let n = steps; n > 0; n >>= 1) {
        if (n & 1) [resultA, resultB] = [(powerA * resultA) % m, (powerA * resultB + powerB) % m];
        [powerA, powerB] = [(powerA * powerA) % m, (powerA * powerB + powerB) % m];
      }
      return (resultA * (x0 % m) + resultB) % m;
    };
    fc.assert(
      fc.property(
        fc.record({
          SEED: fc.integer({ min: 0, max: 2 ** 40 }),
          A: fc.integer({ min: 0, max: 2 ** 40 }),
          B: fc.integer({ min: 0, max: 2 ** 40 }),
          M: fc.integer({ min: 1, max: 2 ** 45 }),
          K: fc.integer({ min: 0, max: 400 }),
        }),
        (inputs) => {
          const { SEED, A, B, M, K } = inputs;
          expect(solve('lcg', inputs)).toBe(naive(BigInt(SEED), BigInt(A), BigInt(B), BigInt(M), K));
        },
      ),
      runs,
    );
  });

  it('modpow: repeated multiplication', () => {
    fc.assert(
      fc.property(
        fc.record({
          BASE: fc.integer({ min: 0, max: 2 ** 40 }),
          EXP: fc.integer({ min: 0, max: 3000 }),
          MOD: fc.integer({ min: 1, max: 2 ** 40 }),
        }),
        (inputs) => {
          const m = BigInt(inputs.MOD);
          let product = 1n % m;
          for (let i = 0; i < inputs.EXP; i++) product = (product * BigInt(inputs.BASE)) % m;
          expect(solve('modpow', inputs)).toBe(product);
        },
      ),
      runs,
    );
  });

  it('continued_frac: evaluate from the innermost term with reduced fractions', () => {
    const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.array(fc.integer({ min: 1, max: 20_000 }), { maxLength: 9 }), (first, rest) => {
        const terms = [first, ...rest];
        // value = a_last; then value = a_i + 1 / value, as p/q, reducing each time.
        let [p, q] = [BigInt(terms.at(-1) as number), 1n];
        for (const term of terms.slice(0, -1).reverse()) {
          [p, q] = [BigInt(term) * p + q, p];
          const g = gcd(p, q);
          [p, q] = [p / g, q / g];
        }
        expect(solve('continued_frac', { TERMS: terms })).toBe(p);
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
          .chain((moduli) => fc.tuple(fc.constant(moduli), fc.tuple(...moduli.map((m) => fc.integer({ min: 0, max: m - 1 }))))),
        ([moduli, remainders]) => {
          const product = moduli.reduce((a, b) => a * b, 1);
          let x = 0;
          while (x < product && !moduli.every((m, i) => x % m === remainders[i])) x++;
          expect(solve('crt_solve', { REMAINDERS: remainders, MODULI: moduli })).toBe(BigInt(x));
        },
      ),
      runs,
    );
  });

  it('crt_solve: golds beyond 2^53 satisfy every congruence exactly', () => {
    const moduli = [2003, 2011, 2017, 2027, 2029, 2039];
    const remainders = [1, 2000, 17, 2026, 5, 1000];
    const x = solve('crt_solve', { REMAINDERS: remainders, MODULI: moduli });
    expect(x).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(x).toBeLessThan(moduli.reduce((a, m) => a * BigInt(m), 1n));
    moduli.forEach((m, i) => expect(x % BigInt(m)).toBe(BigInt(remainders[i] as number)));
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
        expect(solve('josephus', { N: n, K: k })).toBe(BigInt(circle[0] as number));
      }),
      runs,
    );
  });

  it('quadratic_map_mod: plain Number iteration where x*x stays exact', () => {
    fc.assert(
      fc.property(
        fc.record({
          X: fc.integer({ min: 0, max: 2 ** 25 }),
          C: fc.integer({ min: 0, max: 2 ** 25 }),
          MOD: fc.integer({ min: 1, max: 2 ** 25 }),
          K: fc.integer({ min: 0, max: 200 }),
        }),
        (inputs) => {
          let x = inputs.X % inputs.MOD;
          for (let i = 0; i < inputs.K; i++) x = (x * x + inputs.C) % inputs.MOD;
          expect(solve('quadratic_map_mod', inputs)).toBe(BigInt(x));
        },
      ),
      runs,
    );
  });

  it('xorshift_steps: BigInt shifts with an explicit 32-bit mask', () => {
    const mask = 0xffff_ffffn;
    const shift = fc.integer({ min: 1, max: 31 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), shift, shift, shift, fc.integer({ min: 0, max: 200 }), (x, a, b, c, k) => {
        let state = BigInt(x);
        for (let i = 0; i < k; i++) {
          state ^= (state << BigInt(a)) & mask;
          state ^= state >> BigInt(b);
          state ^= (state << BigInt(c)) & mask;
        }
        expect(solve('xorshift_steps', { X: x, A: a, B: b, C: c, K: k })).toBe(state);
      }),
      runs,
    );
  });

  it('matrix_power_mod: multiply K copies one at a time, then sum the four entries', () => {
    const entry = fc.integer({ min: 0, max: 2 ** 30 });
    fc.assert(
      fc.property(
        fc.tuple(entry, entry, entry, entry),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        ([a, b, c, d], k, modulus) => {
          const m = BigInt(modulus);
          const [A, B, C, D] = [a, b, c, d].map(BigInt) as [bigint, bigint, bigint, bigint];
          // Rows of the running product P = M^i, unreduced entries folded mod m at each step.
          let [p, q, r, s] = [1n, 0n, 0n, 1n];
          for (let i = 0; i < k; i++) [p, q, r, s] = [(p * A + q * C) % m, (p * B + q * D) % m, (r * A + s * C) % m, (r * B + s * D) % m];
          expect(solve('matrix_power_mod', { A: a, B: b, C: c, D: d, MOD: modulus, K: k })).toBe((p + q + r + s) % m);
        },
      ),
      runs,
    );
  });
});

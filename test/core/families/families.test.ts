import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { FAMILIES, familyOfInputs, getFamily } from '../../../core/families/registry.js';
import { InputError } from '../../../core/errors.js';
import { createRng } from '../../../core/random/rng.js';

describe('the eight families', () => {
  it('are registered under the paper names, in order', () => {
    expect(FAMILIES.map((f) => f.name)).toEqual([...FAMILY_NAMES]);
  });

  describe.each(FAMILIES.map((f) => [f.name, f] as const))('%s', (name, family) => {
    it.each([10, 100, 1000, 10_000])('samples valid inputs with exact non-negative answers at magnitude %i', (magnitude) => {
      const rng = createRng(magnitude);
      for (let i = 0; i < 200; i++) {
        const inputs = family.sample(rng, magnitude);
        expect(Object.keys(inputs)).toEqual(family.keys);
        expect(family.parseInputs(JSON.parse(JSON.stringify(inputs)))).toEqual(inputs);
        const answer = family.solve(inputs);
        expect(typeof answer).toBe('bigint');
        expect(answer).toBeGreaterThanOrEqual(0n);
      }
    });

    it('grows its golds with the magnitude, except where the paper kept the numbers fixed', () => {
      const largest = (magnitude: number) => {
        const rng = createRng(5);
        return Array.from({ length: 200 }, () => family.solve(family.sample(rng, magnitude))).reduce((a, b) => (a > b ? a : b));
      };
      if (name === 'xorshift_steps') expect(largest(1000)).toBeLessThan(2n ** 32n);
      else expect(largest(1000)).toBeGreaterThan(2n * largest(100));
    });

    it('has at least three cover stories that all state every input value', () => {
      expect(family.coverCount).toBeGreaterThanOrEqual(3);
      const inputs = family.sample(createRng(1), 100);
      const numbers = JSON.stringify(inputs).match(/\d+/g) ?? [];
      const texts = Array.from({ length: family.coverCount }, (_, cover) => family.render(inputs, cover));
      expect(new Set(texts).size).toBe(family.coverCount);
      for (const text of texts) for (const n of numbers) expect(text).toContain(n);
    });

    it('documents every input key in its JSON schema', () => {
      const schema = z.toJSONSchema(family.inputsSchema) as { properties: Record<string, { description?: string }> };
      const keys = Object.keys(family.sample(createRng(2), 100));
      expect(keys).toEqual(family.keys);
      expect(keys.every((key) => key === key.toUpperCase())).toBe(true);
      expect(Object.keys(schema.properties)).toEqual(keys);
      for (const key of keys) expect(schema.properties[key]?.description, key).toBeTruthy();
    });

    it('names a missing input key in a one-line error', () => {
      const inputs = { ...family.sample(createRng(3), 100) } as Record<string, unknown>;
      const [firstKey] = Object.keys(inputs);
      delete inputs[firstKey as string];
      expect(() => family.parseInputs(inputs)).toThrow(new InputError(`${name} inputs.${firstKey}: required but missing`));
    });
  });

  it('each have their own input key set, by which familyOfInputs recognizes them', () => {
    expect(new Set(FAMILIES.map((f) => [...f.keys].sort().join())).size).toBe(FAMILIES.length);
    for (const family of FAMILIES) expect(familyOfInputs(family.sample(createRng(4), 100))).toBe(family);
    expect(familyOfInputs({ X: 1, K: 2 })).toBeUndefined();
  });

  it.each([
    ['lcg', { SEED: 1, A: 2, B: 3, M: 0, K: 4 }, 'lcg inputs.M: expected at least 1'],
    ['continued_frac', { TERMS: [3, 0, 2] }, 'continued_frac inputs.TERMS: partial quotients after the first must be at least 1'],
    ['crt_solve', { REMAINDERS: [1, 2], MODULI: [4, 6] }, 'crt_solve inputs.MODULI: moduli must be pairwise coprime'],
    ['crt_solve', { REMAINDERS: [1, 7], MODULI: [5, 7] }, 'crt_solve inputs.REMAINDERS: each remainder must be below its modulus'],
    ['crt_solve', { REMAINDERS: [1], MODULI: [5, 7] }, 'crt_solve inputs.MODULI: REMAINDERS and MODULI must have the same length'],
    ['xorshift_steps', { X: 2 ** 32, A: 11, B: 7, C: 15, K: 3 }, 'xorshift_steps inputs.X: expected at most 4294967295'],
    ['matrix_power_mod', { A: 1, B: 2, C: 3, D: 4, MOD: 10, K: 2, E: 5 }, 'matrix_power_mod inputs: Unrecognized key: "E"'],
    ['modpow', { base: 2, exponent: 3, modulus: 5 }, 'modpow inputs.BASE: required but missing'],
  ])('%s rejects %j in one line', (name, raw, message) => {
    expect(() => getFamily(name).parseInputs(raw)).toThrow(new InputError(message));
  });

  it('rejects an unknown family by name', () => {
    expect(() => getFamily('fibonacci')).toThrow(/unknown family 'fibonacci'/);
  });
});

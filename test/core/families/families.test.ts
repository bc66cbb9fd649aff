import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { FAMILIES, getFamily } from '../../../core/families/registry.js';
import { InputError } from '../../../core/errors.js';
import { createRng } from '../../../core/random/rng.js';

describe('the eight families', () => {
  it('are registered under the paper names, in order', () => {
    expect(FAMILIES.map((f) => f.name)).toEqual([...FAMILY_NAMES]);
  });

  describe.each(FAMILIES.map((f) => [f.name, f] as const))('%s', (name, family) => {
    it.each([100, 1000, 10_000])('samples valid inputs with safe integer answers at magnitude %i', (magnitude) => {
      const rng = createRng(magnitude);
      for (let i = 0; i < 200; i++) {
        const inputs = family.sample(rng, magnitude);
        expect(family.parseInputs(JSON.parse(JSON.stringify(inputs)))).toEqual(inputs);
        const answer = family.solve(inputs);
        expect(Number.isSafeInteger(answer)).toBe(true);
        expect(answer).toBeGreaterThanOrEqual(0);
      }
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

  it('rejects an unknown family by name', () => {
    expect(() => getFamily('fibonacci')).toThrow(/unknown family 'fibonacci'/);
  });
});

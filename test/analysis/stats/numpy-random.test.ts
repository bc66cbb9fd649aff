import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultRng, Pcg64, seedSequenceState } from '../../../analysis/stats/numpy-random.js';
import { fixture, fixtureEntries, type FixtureCase } from './numpy-fixture.js';

/*
 * analysis/stats/numpy-random.ts against numpy's own output (test/fixtures/numpy-default-rng.json,
 * made by test/fixtures/numpy-default-rng.py): every entry of every case, and the seeding and raw
 * 64-bit stream on the way there.
 */
const product = (size: readonly number[]) => size.reduce((a, b) => a * b, 1);

/** Our generator run through the case's calls, entries concatenated row-major. */
function ours(c: FixtureCase): number[] {
  const rng = defaultRng(c.seed);
  return c.calls.flatMap(({ low, high, size }) => Array.from(rng.integers(low, high, product(size))));
}

function sha256Int64le(values: readonly number[]): string {
  const bytes = new DataView(new ArrayBuffer(8 * values.length));
  values.forEach((v, i) => bytes.setBigInt64(8 * i, BigInt(v), true));
  return createHash('sha256').update(new Uint8Array(bytes.buffer)).digest('hex');
}

describe('the numpy fixture', () => {
  it('records how it was made and holds every entry', () => {
    expect(fixture.how[0]).toContain(`numpy ${fixture.numpy}`);
    for (const c of fixture.cases) {
      expect(fixture.how).toContain(`cases[${fixture.cases.indexOf(c)}]: ${c.expression}`);
      const entries = fixtureEntries(c);
      expect(entries).toHaveLength(product(c.shape));
      expect(sha256Int64le(entries)).toBe(c.sha256Int64le);
    }
    expect(fixture.cases[0]?.expression).toBe('np.random.default_rng(0).integers(0, 24, size=(10000, 24))');
  });
});

describe('SeedSequence and PCG64', () => {
  it('SeedSequence(0).generate_state(4, np.uint64) pairs the uint32 words little-endian', () => {
    const words = seedSequenceState(0, 8);
    const uint64 = [0, 1, 2, 3].map((k) => ((BigInt(words[2 * k + 1] as number) << 32n) | BigInt(words[2 * k] as number)).toString());
    expect(uint64).toEqual(fixture.seedSequenceUint64);
  });

  it('seeds PCG64 as default_rng(0) does', () => {
    const { state, inc } = new Pcg64(0).getState();
    expect({ state: state.toString(), inc: inc.toString() }).toEqual(fixture.initialState);
  });

  it("gives default_rng(0).bit_generator.random_raw()'s 64-bit outputs", () => {
    const bits = new Pcg64(0);
    expect(fixture.randomRaw.map(() => bits.nextUint64().toString())).toEqual(fixture.randomRaw);
  });

  it('splits each 64-bit output into two 32-bit draws, low half first', () => {
    const raw = new Pcg64(0);
    const halves = new Pcg64(0);
    for (let i = 0; i < 4; i++) {
      const value = raw.nextUint64();
      expect(halves.nextUint32()).toBe(Number(value & 0xffffffffn));
      expect(halves.nextUint32()).toBe(Number(value >> 32n));
    }
  });
});

describe('Generator.integers', () => {
  for (const c of fixture.cases) {
    it(`reproduces every entry of ${c.expression}`, () => {
      const actual = ours(c);
      const expected = fixtureEntries(c);
      expect(actual).toHaveLength(expected.length);
      const firstMismatch = actual.findIndex((v, i) => v !== expected[i]);
      expect(firstMismatch).toBe(-1);
    });
  }

  it('rejects ranges it does not reproduce', () => {
    expect(() => defaultRng(0).integers(0, 0, 1)).toThrow(/low < high/);
    expect(() => defaultRng(0).integers(0, 2 ** 32, 1)).toThrow(/2\^32 - 1/);
    expect(() => defaultRng(-1)).toThrow(/non-negative/);
    expect(() => defaultRng(0.5)).toThrow(/non-negative/);
  });
});

import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { getFamily } from '../../../core/families/registry.js';
import { drawClassSequence } from '../../../core/stream/class-sequence.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { DEFAULT_STREAM_CONFIG, panelSeeds, parseStreamConfig } from '../../../core/stream/stream-config.js';
import { streamHash } from '../../../core/stream/stream-hash.js';

const config = DEFAULT_STREAM_CONFIG;
const panel = panelSeeds();

describe('stream config', () => {
  it("defaults to the paper's settings", () => {
    expect(config).toEqual({ length: 60, budget: 3, hotCount: 3, hotMass: 0.85, magnitude: 100 });
  });

  it.each([
    [{ length: 0 }, 'stream config.length'],
    [{ budget: 2.5 }, 'stream config.budget'],
    [{ hotCount: 8 }, 'stream config.hotCount'],
    [{ hotMass: 1 }, 'stream config.hotMass'],
    [{ magnitude: 5 }, 'stream config.magnitude'],
    [{ length: 2, budget: 3 }, 'stream config.budget'],
    [{ colour: 'red' }, 'stream config'],
  ])('rejects %j naming %s', (raw, field) => {
    expect(() => parseStreamConfig(raw)).toThrow(new RegExp(`^${field.replace('.', '\\.')}: `));
  });
});

describe('class sequence', () => {
  it('splits the eight families into hot and trap roles', () => {
    for (const seed of panel) {
      const { hot, trap } = drawClassSequence(seed, config);
      expect(hot).toHaveLength(3);
      expect(trap).toHaveLength(5);
      expect([...hot, ...trap].sort()).toEqual(FAMILY_NAMES.map((_, i) => i));
    }
  });

  it('varies the roles across seeds', () => {
    const hotSets = new Set(panel.map((seed) => drawClassSequence(seed, config).hot.join()));
    expect(hotSets.size).toBeGreaterThan(12);
  });

  it('always places a trap within the first B positions, for any settings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 7 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (seed, budget, hotCount, hotMass) => {
          const settings = parseStreamConfig({ budget, hotCount, hotMass });
          const { trap, classes } = drawClassSequence(seed, settings);
          expect(Array.from(classes.slice(0, budget)).some((c) => trap.includes(c))).toBe(true);
          expect(classes).toHaveLength(60);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches the role masses once the early-trap rejection is accounted for', () => {
    // Positions 1..B are conditioned on at least one trap; positions B+1..T are unconditioned.
    const seeds = 4000;
    let trapDraws = 0;
    const perFamily = new Array<number>(8).fill(0);
    let hotDrawsByRank = [0, 0, 0];
    for (let seed = 0; seed < seeds; seed++) {
      const { hot, trap, classes } = drawClassSequence(seed, config);
      const tail = Array.from(classes.slice(config.budget));
      trapDraws += tail.filter((c) => trap.includes(c)).length;
      hotDrawsByRank = hotDrawsByRank.map((n, rank) => n + tail.filter((c) => c === hot[rank]).length);
      for (const c of classes) perFamily[c] = (perFamily[c] as number) + 1;
    }
    const tailDraws = seeds * (config.length - config.budget);
    const trapShare = trapDraws / tailDraws;
    expect(Math.abs(trapShare - 0.15)).toBeLessThan(5 * Math.sqrt((0.15 * 0.85) / tailDraws));
    for (const n of hotDrawsByRank) {
      expect(Math.abs(n / tailDraws - 0.85 / 3)).toBeLessThan(5 * Math.sqrt((0.2833 * 0.7167) / tailDraws));
    }
    // Roles are assigned uniformly, so every family is drawn about equally often overall.
    const mean = perFamily.reduce((a, b) => a + b, 0) / 8;
    for (const n of perFamily) expect(Math.abs(n / mean - 1)).toBeLessThan(0.05);
  });

  it('gives hot and trap counts in the ranges the paper describes', () => {
    // Expected trap draws per stream: 3 * 0.15 / (1 - 0.85^3) in the first three positions, 57 * 0.15 after.
    const expectedTraps = (3 * 0.15) / (1 - 0.85 ** 3) + 57 * 0.15;
    const counts = Array.from({ length: 2000 }, (_, seed) => {
      const { trap, classes } = drawClassSequence(seed, config);
      return Array.from(classes).filter((c) => trap.includes(c)).length;
    });
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(Math.abs(mean - expectedTraps)).toBeLessThan(0.25);
    for (const seed of panel) {
      const { hot, trap, classes } = drawClassSequence(seed, config);
      const countOf = (c: number) => Array.from(classes).filter((x) => x === c).length;
      for (const c of hot) expect(countOf(c)).toBeGreaterThanOrEqual(8);
      for (const c of trap) expect(countOf(c)).toBeLessThanOrEqual(9);
    }
  });

  it('does not depend on the magnitude', () => {
    for (const seed of panel) {
      const small = drawClassSequence(seed, config).classes;
      const large = drawClassSequence(seed, parseStreamConfig({ magnitude: 1000 })).classes;
      expect(large).toEqual(small);
    }
  });
});

describe('generateStream', () => {
  const stream = generateStream(2000, config);

  it('has the documented fields, 1-based turns and gold answers', () => {
    expect(stream.seed).toBe(2000);
    expect(stream.items).toHaveLength(60);
    stream.items.forEach((item, index) => {
      expect(item.t).toBe(index + 1);
      expect(item.role).toBe(stream.hot.includes(item.family) ? 'hot' : 'trap');
      const family = getFamily(item.family);
      expect(item.answer).toMatch(/^\d+$/);
      expect(item.answer).toBe(family.solve(item.inputs).toString());
      expect(item.cover).not.toBeNull();
      expect(item.text).toBe(family.render(item.inputs, item.cover ?? -1));
    });
  });

  it('hashes its content, and the hash survives a JSON round trip', () => {
    const { hash, ...body } = JSON.parse(JSON.stringify(stream));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(streamHash(body)).toBe(hash);
    const tampered = {
      ...body,
      items: body.items.map((item: { answer: string }, i: number) =>
        i === 5 ? { ...item, answer: String(BigInt(item.answer) + 1n) } : item,
      ),
    };
    expect(streamHash(tampered)).not.toBe(hash);
  });

  it('is identical across runs and processes', () => {
    expect(generateStream(2000, config)).toEqual(stream);
    const script = `import('./dist/core/stream/generate-stream.js').then(async (g) => {
      const { DEFAULT_STREAM_CONFIG } = await import('./dist/core/stream/stream-config.js');
      process.stdout.write(g.generateStream(2000, DEFAULT_STREAM_CONFIG).hash);
    })`;
    const otherProcess = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(otherProcess).toBe(stream.hash);
  });

  it('keeps the latent classes and changes the numbers at magnitude 1000', () => {
    const hard = generateStream(2000, parseStreamConfig({ magnitude: 1000 }));
    expect(hard.items.map((i) => i.family)).toEqual(stream.items.map((i) => i.family));
    expect(hard.hash).not.toBe(stream.hash);
  });

  it('gives golds beyond 2^53 as exact decimal strings, and they survive the JSON round trip', () => {
    const hard = generateStream(2000, parseStreamConfig({ magnitude: 1000 }));
    const big = hard.items.filter((item) => BigInt(item.answer) > BigInt(Number.MAX_SAFE_INTEGER));
    expect(big.length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(hard)).items.map((item: { answer: string }) => item.answer)).toEqual(
      hard.items.map((item) => item.answer),
    );
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { getFamily } from '../../../core/families/registry.js';
import { isPrime } from '../../../core/math/number-theory.js';
import { createRng } from '../../../core/random/rng.js';
import { PAPER_TEX } from '../../paper-artifacts.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, paperStreams, type PaperItem } from '../paper-streams.js';

/*
 * The families against the paper's stored streams: our gold solver gives the
 * stored gold on every item, and our sampler at magnitude 100 draws from the
 * parameter ranges the stored items show (bounds, granularity, value sets).
 */

const items = (): PaperItem[] => paperStreams().flatMap((file) => file.items);

/** Each parameter's values: a scalar key's values, a list key's elements and (as `KEY.length`) its lengths. */
function parameterValues(inputs: readonly Record<string, unknown>[]): Map<string, number[]> {
  const values = new Map<string, number[]>();
  const add = (key: string, value: number) => {
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  };
  for (const input of inputs) {
    for (const [key, value] of Object.entries(input)) {
      if (Array.isArray(value)) {
        add(`${key}.length`, value.length);
        for (const element of value) add(key, element as number);
      } else add(key, value as number);
    }
  }
  return values;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const summary = (values: readonly number[]) => ({
  min: values.reduce((a, b) => Math.min(a, b)),
  max: values.reduce((a, b) => Math.max(a, b)),
  gcd: values.reduce(gcd, 0),
  allPrime: values.every(isPrime),
  distinct: new Set(values),
});

/** How far beyond the data's extremes our bounds may reach, as a share of our range. */
const SLACK = 0.05;
const DRAWS = 20_000;

describe.skipIf(!HAVE_PAPER_RUNS)(HAVE_PAPER_RUNS ? "the families on the paper's stored streams" : `skipped: ${NO_PAPER_RUNS}`, () => {
  it('reads the distinct stream files, with all eight families and golds beyond 2^53', () => {
    const files = paperStreams();
    expect(files.length).toBeGreaterThan(0);
    expect(new Set(items().map((item) => item.family))).toEqual(new Set(FAMILY_NAMES));
    expect(items().some((item) => typeof item.gold === 'bigint' && item.gold > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
  });

  it('gives the stored gold on every item of every stream', () => {
    const wrong: string[] = [];
    for (const file of paperStreams()) {
      file.items.forEach((item, index) => {
        const family = getFamily(item.family);
        expect(item.keys, `${file.path} item ${index + 1}`).toEqual(family.keys);
        const gold = family.solve(family.parseInputs(item.inputs));
        if (gold !== BigInt(item.gold)) wrong.push(`${file.path} item ${index + 1} (${item.family}): ${gold} != ${item.gold}`);
      });
    }
    expect(wrong).toEqual([]);
  });

  describe.each(FAMILY_NAMES.map((name) => [name]))('%s at magnitude 100', (name) => {
    const family = getFamily(name);
    const data = () => parameterValues(items().flatMap((item) => (item.family === name ? [item.inputs] : [])));
    const ours = (() => {
      let memo: Map<string, number[]> | undefined;
      return () => {
        if (!memo) {
          const rng = createRng(FAMILY_NAMES.indexOf(name));
          memo = parameterValues(Array.from({ length: DRAWS }, () => family.sample(rng, 100) as Record<string, unknown>));
        }
        return memo;
      };
    })();

    it('samples the same parameters as the data', () => {
      expect([...ours().keys()].sort()).toEqual([...data().keys()].sort());
    });

    it("covers each parameter's stored range, and reaches at most a few percent beyond it", () => {
      for (const [key, stored] of data()) {
        const [seen, drawn] = [summary(stored), summary(ours().get(key) ?? [])];
        const span = Math.max(1, drawn.max - drawn.min);
        const where = `${name}.${key}: data [${seen.min}, ${seen.max}], ours [${drawn.min}, ${drawn.max}]`;
        expect(drawn.min, where).toBeLessThanOrEqual(seen.min);
        expect(drawn.max, where).toBeGreaterThanOrEqual(seen.max);
        expect((seen.min - drawn.min) / span, where).toBeLessThanOrEqual(SLACK);
        expect((drawn.max - seen.max) / span, where).toBeLessThanOrEqual(SLACK);
      }
    });

    it("keeps each parameter's granularity: common divisor, primality and small value sets", () => {
      for (const [key, stored] of data()) {
        const [seen, drawn] = [summary(stored), summary(ours().get(key) ?? [])];
        expect(drawn.gcd, `${name}.${key} common divisor`).toBe(seen.gcd);
        if (seen.allPrime && seen.distinct.size > 2) expect(drawn.allPrime, `${name}.${key} all prime`).toBe(true);
        if (seen.distinct.size <= 40)
          expect(
            [...drawn.distinct].sort((a, b) => a - b),
            `${name}.${key} values`,
          ).toEqual([...seen.distinct].sort((a, b) => a - b));
      }
    });
  });

  it('keeps the structural constraints the data show (remainders below moduli, distinct primes)', () => {
    const rng = createRng(7);
    for (let i = 0; i < 2000; i++) {
      const { REMAINDERS, MODULI } = getFamily('crt_solve').sample(rng, 100) as { REMAINDERS: number[]; MODULI: number[] };
      expect(new Set(MODULI).size).toBe(MODULI.length);
      REMAINDERS.forEach((r, j) => expect(r).toBeLessThan(MODULI[j] as number));
    }
  });
});

describe.skipIf(!HAVE_PAPER_RUNS)(
  HAVE_PAPER_RUNS ? "the cover stories against the paper's question texts" : `skipped: ${NO_PAPER_RUNS}`,
  () => {
    /** A text with every number masked, so a template is compared, not its values. */
    const mask = (text: string) => text.replace(/\d+/g, '#').replace(/\s+/g, ' ').toLowerCase();
    /** The instances the paper itself quotes verbatim (its Appendix B.3 verbatim block): those we may use as they are. */
    const quotedByPaper = (() => {
      const tex = existsSync(PAPER_TEX) ? readFileSync(PAPER_TEX, 'utf8') : '';
      const blocks = [...tex.matchAll(/\\begin\{verbatim\}([\s\S]*?)\\end\{verbatim\}/g)].map((m) => m[1] ?? '');
      return mask(blocks.join(' '));
    })();

    it.each(FAMILY_NAMES.map((name) => [name]))(
      '%s: no cover repeats a stored question beyond the instances the paper quotes (project rule: our own words)',
      (name) => {
        const family = getFamily(name);
        const questions = new Set(
          items()
            .filter((item) => item.family === name)
            .map((item) => mask(item.question)),
        );
        const example = items().find((item) => item.family === name);
        expect(example).toBeDefined();
        const inputs = family.parseInputs(example?.inputs);
        for (let cover = 0; cover < family.coverCount; cover++) {
          const sentences = mask(family.render(inputs, cover))
            .split(/(?<=[.?!])\s+/)
            .filter((sentence) => sentence.length >= 30);
          for (const sentence of sentences) {
            if (quotedByPaper.includes(sentence)) continue;
            for (const question of questions) expect(question.includes(sentence), `cover ${cover}: "${sentence}"`).toBe(false);
          }
        }
      },
    );
  },
);

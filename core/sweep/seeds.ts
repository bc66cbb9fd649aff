import { MAX_SEED } from '../random/rng.js';

/**
 * Seed lists, as the CLI's `--seeds` and a sweep file's `seeds` give them: one
 * reading and one set of rules for both. Text is "2000-2023", "2000,2005" or a
 * mix; a range must run forwards, every seed lie in 0..MAX_SEED, and no seed
 * appear twice. Each broken rule is one error line.
 */
export interface SeedList {
  /** The seeds in the order written. */
  readonly seeds: readonly number[];
  readonly errors: readonly string[];
}

const SEED = /^\d+$/;
const RANGE = /^(\d+)\s*-\s*(\d+)$/;

function checkSeed(seed: number, text: string, errors: string[]): boolean {
  if (Number.isSafeInteger(seed) && seed >= 0 && seed <= MAX_SEED) return true;
  errors.push(`seed ${text} is outside 0 to ${MAX_SEED}`);
  return false;
}

/** Seeds that appear more than once, named once each, as one error; none if every seed is distinct. */
function repeatErrors(seeds: readonly number[]): string[] {
  const seen = new Set<number>();
  const repeats = new Set<number>();
  for (const seed of seeds) (seen.has(seed) ? repeats : seen).add(seed);
  if (repeats.size === 0) return [];
  const list = [...repeats].join(', ');
  return [repeats.size === 1 ? `seed ${list} appears more than once` : `seeds ${list} appear more than once`];
}

/** The most seeds one range may give (a sweep is a session per seed). */
const MAX_RANGE = 1_000_000;

/** Errors of a seed list given as numbers (a sweep file's array): out of range or repeated. */
export function seedListErrors(seeds: readonly number[]): string[] {
  const errors: string[] = [];
  for (const seed of seeds) {
    if (!Number.isInteger(seed)) errors.push(`${seed} is not a seed (a whole number)`);
    else checkSeed(seed, String(seed), errors);
  }
  if (seeds.length === 0) errors.push('no seeds');
  return [...errors, ...repeatErrors(seeds)];
}

/** Reads seed text ("2000-2023", "2000,2005-2007"): the seeds in the order written, and one error per broken rule. */
export function parseSeedList(text: string): SeedList {
  const seeds: number[] = [];
  const errors: string[] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim();
    const range = RANGE.exec(part);
    if (range) {
      const [first, last] = [Number(range[1]), Number(range[2])];
      const ok = checkSeed(first, range[1] as string, errors) && checkSeed(last, range[2] as string, errors);
      if (ok && first > last) errors.push(`range ${first}-${last} runs backwards`);
      else if (ok && last - first >= MAX_RANGE) errors.push(`range ${first}-${last} holds more than ${MAX_RANGE} seeds`);
      else if (ok) for (let seed = first; seed <= last; seed++) seeds.push(seed);
    } else if (SEED.test(part)) {
      if (checkSeed(Number(part), part, errors)) seeds.push(Number(part));
    } else {
      errors.push(part === '' ? `an empty item in "${text.trim()}"` : `'${part}' is not a seed or a range such as 2000-2023`);
    }
  }
  return { seeds, errors: [...errors, ...repeatErrors(seeds)] };
}

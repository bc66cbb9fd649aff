import { InvalidArgumentError } from 'commander';
import { parseSeedList } from '../core/sweep/seeds.js';

/*
 * Argument parsers for commander options: each rejects a bad value with one
 * line that names what was expected (commander prefixes the option's name).
 */

export function integerIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return parsed;
  };
}

export function numberIn(min: number, max: number, { exclusiveMin = false } = {}): (value: string) => number {
  return (value) => {
    const parsed = value.trim() === '' ? Number.NaN : Number(value);
    const aboveMin = exclusiveMin ? parsed > min : parsed >= min;
    if (!Number.isFinite(parsed) || !aboveMin || parsed > max) {
      throw new InvalidArgumentError(`expected a number ${exclusiveMin ? 'above' : 'from'} ${min} ${exclusiveMin ? 'up to' : 'to'} ${max}`);
    }
    return parsed;
  };
}

/** Seeds as "2000-2023", "2000,2005" or a mix, by the rules a sweep file's seeds follow (core/sweep/seeds.ts): ascending. */
export function seedList(min: number, max: number): (value: string) => number[] {
  return (value) => {
    const { seeds, errors: found } = parseSeedList(value);
    const errors = [...found];
    const outside = seeds.filter((seed) => seed < min || seed > max);
    if (outside.length > 0) errors.push(`seed ${outside[0]} is outside ${min} to ${max}`);
    if (seeds.length === 0 && errors.length === 0) errors.push('no seeds');
    if (errors.length > 0) throw new InvalidArgumentError(errors.join('; '));
    return [...seeds].sort((a, b) => a - b);
  };
}

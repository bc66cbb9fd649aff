import { InvalidArgumentError } from 'commander';

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

export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}`);
    }
    return value as T;
  };
}

/** Seeds as "2000-2023", "2000,2005" or a mix: ascending and distinct. */
export function seedList(min: number, max: number): (value: string) => number[] {
  const seed = integerIn(min, max);
  return (value) => {
    const seeds = value.split(',').flatMap((part) => {
      const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(part);
      if (!range) return [seed(part)];
      const [first, last] = [seed(range[1] as string), seed(range[2] as string)];
      if (first > last) throw new InvalidArgumentError(`range ${part.trim()} runs backwards`);
      return Array.from({ length: last - first + 1 }, (_, i) => first + i);
    });
    const sorted = [...new Set(seeds)].sort((a, b) => a - b);
    if (sorted.length !== seeds.length) throw new InvalidArgumentError('seeds repeat');
    return sorted;
  };
}

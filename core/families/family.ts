import { z } from 'zod';
import { randomInt, type Rng } from '../random/rng.js';
import { parseOrThrow } from '../validation.js';

import { FAMILY_NAMES, type FamilyName } from './family-names.js';

export { FAMILY_NAMES, type FamilyName };

/**
 * Canonical inputs: the plain JSON object an R2/R3 `solve(inputs)` receives, under the
 * paper's upper-case keys (its stream files' `inputs`, e.g. `{SEED, A, B, M, K}` for lcg).
 */
export type Inputs = Readonly<Record<string, unknown>>;

/** What each family file defines, typed by its own inputs. */
export interface FamilySpec<I extends Inputs> {
  readonly name: FamilyName;
  /** The procedure in one sentence (documentation; never shown to a model). */
  readonly procedure: string;
  /** Schema of the canonical inputs: a strict object whose keys each carry their meaning via `.describe()`. */
  readonly inputs: z.ZodType<I>;
  /** Fresh parameters at a magnitude (100 by default: the paper's streams; 1000 for the hard check). */
  sample(rng: Rng, magnitude: number): I;
  /** Cover stories: the same procedure told in unrelated narratives. */
  readonly covers: readonly ((inputs: I) => string)[];
  /** Exact gold answer, a non-negative integer of any size. */
  solve(inputs: I): bigint;
}

/** A family with its inputs type erased, as the registry and generator use it. */
export interface Family {
  readonly name: FamilyName;
  readonly procedure: string;
  readonly inputsSchema: z.ZodType<Inputs>;
  /** The input keys, in the paper's order (the stream files' `keys`). */
  readonly keys: readonly string[];
  readonly coverCount: number;
  sample(rng: Rng, magnitude: number): Inputs;
  render(inputs: Inputs, cover: number): string;
  solve(inputs: Inputs): bigint;
  /** Validates raw inputs (user JSON); throws an InputError naming the field. */
  parseInputs(raw: unknown): Inputs;
}

export function defineFamily<I extends Inputs>(spec: FamilySpec<I>): Family {
  const schema = spec.inputs as unknown as z.ZodType<Inputs>;
  return {
    name: spec.name,
    procedure: spec.procedure,
    inputsSchema: schema,
    keys: Object.keys((spec.inputs as unknown as z.ZodObject).shape),
    coverCount: spec.covers.length,
    sample: (rng, magnitude) => spec.sample(rng, magnitude),
    render: (inputs, cover) => {
      const renderCover = spec.covers[cover];
      if (!renderCover) throw new RangeError(`${spec.name}: no cover ${cover}`);
      return renderCover(inputs as I);
    },
    solve: (inputs) => spec.solve(inputs as I),
    parseInputs: (raw) => parseOrThrow(spec.inputs, raw, `${spec.name} inputs`),
  };
}

/** Integer schema helpers shared by the families' input schemas. */
export const integer = (min: number, max: number, description: string) =>
  z
    .number('expected a number')
    .int('expected an integer')
    .min(min, `expected at least ${min}`)
    .max(max, `expected at most ${max}`)
    .describe(description);

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Loop-count ceiling that keeps any gold solve well under a second. */
export const MAX_STEPS = 10_000_000;

/**
 * The paper harness's "scale" draw: a uniform integer in [137·M, 9973·M] at
 * magnitude M ([13,700, 997,300] at 100), for the large operands of modpow,
 * quadratic_map_mod and matrix_power_mod.
 */
export const SCALE = { low: 137, high: 9973 } as const;

export function scaled(rng: Rng, magnitude: number): number {
  return randomInt(rng, SCALE.low * magnitude, SCALE.high * magnitude);
}

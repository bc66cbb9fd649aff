/**
 * The eight procedure families, in the paper's order: a family's index is its
 * class id. Apart from the families' definitions (family.ts, which need zod),
 * so that workflow code reads the list without loading a schema library.
 */
export const FAMILY_NAMES = [
  'lcg',
  'modpow',
  'continued_frac',
  'crt_solve',
  'josephus',
  'quadratic_map_mod',
  'xorshift_steps',
  'matrix_power_mod',
] as const;

export type FamilyName = (typeof FAMILY_NAMES)[number];

import { InputError } from '../errors.js';
import { continued_frac } from './continued_frac.js';
import { crt_solve } from './crt_solve.js';
import { FAMILY_NAMES, type Family, type Inputs } from './family.js';
import { josephus } from './josephus.js';
import { lcg } from './lcg.js';
import { matrix_power_mod } from './matrix_power_mod.js';
import { modpow } from './modpow.js';
import { quadratic_map_mod } from './quadratic_map_mod.js';
import { xorshift_steps } from './xorshift_steps.js';

/** All eight families, indexed in FAMILY_NAMES order (the class id is the index). */
export const FAMILIES: readonly Family[] = [
  lcg,
  modpow,
  continued_frac,
  crt_solve,
  josephus,
  quadratic_map_mod,
  xorshift_steps,
  matrix_power_mod,
];

export function getFamily(name: string): Family {
  const family = FAMILIES.find((f) => f.name === name);
  if (!family) throw new InputError(`unknown family '${name}' (known: ${FAMILY_NAMES.join(', ')})`);
  return family;
}

/** The family whose input keys are exactly those of `inputs` (every family's key set differs), if any. */
export function familyOfInputs(inputs: Inputs): Family | undefined {
  const keys = Object.keys(inputs).sort().join();
  return FAMILIES.find((family) => [...family.keys].sort().join() === keys);
}

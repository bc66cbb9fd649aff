import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer, MAX_SAFE } from './family.js';

const inputs = z
  .strictObject({
    TERMS: z
      .array(integer(0, MAX_SAFE, 'a partial quotient'))
      .min(1)
      .max(64)
      .describe('partial quotients [a0, a1, ..., an] of a0 + 1/(a1 + 1/(... + 1/an))'),
  })
  .refine(({ TERMS }) => TERMS.slice(1).every((term) => term >= 1), {
    message: 'partial quotients after the first must be at least 1',
    path: ['TERMS'],
  });
type ContinuedFracInputs = z.infer<typeof inputs>;

/**
 * Numerator of the last convergent: p <- a*p + p_prev over the terms, from p = 1, p_prev = 0.
 * With every term after the first at least 1, p and its denominator q are coprime, so p is
 * the numerator of the fraction's value in lowest terms.
 */
function numerator(terms: readonly number[]): bigint {
  let [previous, current] = [0n, 1n];
  for (const term of terms) [previous, current] = [current, BigInt(term) * current + previous];
  return current;
}

function nested(terms: readonly number[]): string {
  const [first, ...rest] = terms;
  return rest.length === 0 ? `${first}` : `${first} + 1/(${nested(rest)})`;
}

/** Continued fraction: collapse [a0; a1, ..., an] into p/q in lowest terms; report p. */
export const continued_frac = defineFamily<ContinuedFracInputs>({
  name: 'continued_frac',
  procedure: 'numerator p of [a0; a1, ..., an] = p/q in lowest terms: p <- a*p + p_prev over the terms from p = 1, p_prev = 0',
  inputs,
  // As the paper's harness: 3 or 4 terms, each in [11M, 120M] at magnitude M ([1,100, 12,000] at 100).
  sample: (rng, magnitude) => {
    const count = randomInt(rng, 3, 4);
    return { TERMS: Array.from({ length: count }, () => randomInt(rng, 11 * magnitude, 120 * magnitude)) };
  },
  covers: [
    ({ TERMS }) => `Evaluate the continued fraction ${nested(TERMS)}. Write the value as a fraction p/q in lowest terms and report p.`,
    ({ TERMS }) =>
      `A gear train's overall ratio is given by the continued fraction with partial quotients [${TERMS.join(', ')}], that is ${nested(TERMS)}. Express the ratio as a single fraction in lowest terms. What is its numerator?`,
    ({ TERMS }) =>
      `An astronomer approximates the ratio of two orbital periods by ${nested(TERMS)}. Collapse this expression into one fraction in lowest terms and give the numerator.`,
  ],
  solve: ({ TERMS }) => numerator(TERMS),
});

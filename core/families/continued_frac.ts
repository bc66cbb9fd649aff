import { z } from 'zod';
import { randomInt } from '../random/rng.js';
import { defineFamily, integer } from './family.js';

const inputs = z
  .strictObject({
    terms: z
      .array(integer(0, 1_000_000, 'a partial quotient'))
      .min(1)
      .max(40)
      .describe('partial quotients [a0, a1, ..., an] of a0 + 1/(a1 + 1/(... + 1/an))'),
  })
  .refine(({ terms }) => terms.slice(1).every((term) => term >= 1), {
    message: 'partial quotients after the first must be at least 1',
    path: ['terms'],
  })
  .refine(({ terms }) => numerator(terms) <= BigInt(Number.MAX_SAFE_INTEGER), {
    message: 'the numerator would exceed 2^53',
    path: ['terms'],
  });
type ContinuedFracInputs = z.infer<typeof inputs>;

/** Numerator of the convergent: p_k = a_k p_{k-1} + p_{k-2}; such p and q are always coprime. */
function numerator(terms: readonly number[]): bigint {
  let [previous, current] = [0n, 1n]; // p_{-2}, p_{-1}
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
  procedure: 'evaluate [a0; a1, ..., an] as p/q in lowest terms; the answer is p',
  inputs,
  // Magnitude M: quotients up to M; as many terms (5–7, fewer at large M) as keep p below 2^52.
  sample: (rng, magnitude) => {
    const maxTerms = Math.min(7, Math.max(3, Math.floor(52 / Math.log2(magnitude + 1))));
    const count = randomInt(rng, Math.min(5, maxTerms), maxTerms);
    const terms = [randomInt(rng, 0, magnitude)];
    while (terms.length < count) terms.push(randomInt(rng, 1, magnitude));
    return { terms };
  },
  covers: [
    ({ terms }) => `Evaluate the continued fraction ${nested(terms)}. Write the value as a fraction p/q in lowest terms and report p.`,
    ({ terms }) =>
      `A gear train's overall ratio is given by the continued fraction with partial quotients [${terms.join(', ')}], that is ${nested(terms)}. Express the ratio as a single fraction in lowest terms. What is its numerator?`,
    ({ terms }) =>
      `An astronomer approximates the ratio of two orbital periods by ${nested(terms)}. Collapse this expression into one fraction in lowest terms and give the numerator.`,
  ],
  solve: ({ terms }) => Number(numerator(terms)),
});

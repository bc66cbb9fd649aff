import { z } from 'zod';

/** USD per million tokens. `cachedInput` prices cache reads; `cacheWrite` (Anthropic) defaults to the input price. */
export const priceSchema = z.strictObject({
  input: z.number().min(0),
  cachedInput: z.number().min(0),
  cacheWrite: z.number().min(0).optional(),
  output: z.number().min(0),
});
export type Price = z.output<typeof priceSchema>;

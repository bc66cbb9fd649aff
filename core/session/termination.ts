/**
 * How a session ended. The mechanical failures permit a replacement run
 * (paper B.6); 'budget-exhausted' is R3's stop after the last write (B.4).
 */
export type Termination =
  | 'stream-end'
  | 'budget-exhausted'
  | 'token-cap'
  | 'cost-cap'
  | 'run-cost-cap'
  | 'transport-exhausted'
  | 'provider-error';

export const MECHANICAL_FAILURES: readonly Termination[] = ['transport-exhausted', 'provider-error'];

/**
 * How a session's run ended. The mechanical failures permit a replacement run
 * (paper B.6); 'budget-exhausted' is R3's stop after the last write (B.4);
 * 'token-cap' is the paper's own session limit. The cost caps and a cancel
 * are limits of an invocation, not of the experiment: a later run goes on
 * from the session's records.
 */
export type Termination =
  | 'stream-end'
  | 'budget-exhausted'
  | 'token-cap'
  | 'cost-cap'
  | 'run-cost-cap'
  | 'cancelled'
  | 'transport-exhausted'
  | 'provider-error';

export const MECHANICAL_FAILURES: readonly Termination[] = ['transport-exhausted', 'provider-error'];

/**
 * A session's ending, as every reader names it: finished by the experiment's
 * own rules (the stream's end, R3's last write, the token cap), stopped by a
 * cost cap, cancelled, or failed mechanically. Only a finished session is
 * measured; the others are resumed by running the sweep again.
 */
export type SessionEnding = 'finished' | 'stopped' | 'cancelled' | 'failed';

export function endingOf(termination: Termination): SessionEnding {
  switch (termination) {
    case 'stream-end':
    case 'budget-exhausted':
    case 'token-cap':
      return 'finished';
    case 'cost-cap':
    case 'run-cost-cap':
      return 'stopped';
    case 'cancelled':
      return 'cancelled';
    case 'transport-exhausted':
    case 'provider-error':
      return 'failed';
  }
}

/**
 * What an agent may know at a decision: the turn, the horizon and budget, the
 * charge, N if disclosed, and the class history — classes labelled by order of
 * first appearance (0, 1, 2, ...), so nothing about families, roles or rates leaks.
 */
export interface Observation {
  /** t, 1-based. */
  readonly turn: number;
  /** T. */
  readonly horizon: number;
  /** B. */
  readonly budget: number;
  /** b_t, positive at a decision. */
  readonly remaining: number;
  /** K, the visible one-time charge per commitment (0 outside the economic variant). */
  readonly charge: number;
  /** N when the prompt discloses it, else null. */
  readonly classCount: number | null;
  /** Label of the current item's class. */
  readonly label: number;
  /** Occurrences of the current class so far, this one included. */
  readonly occurrence: number;
  /** Occurrences so far per label, this turn included. */
  readonly counts: readonly number[];
  /**
   * Turn (1-based) of each label's first appearance, as the history shows it:
   * which classes the first W items held, for the policy that knows the
   * generator's trap window (policies/optimal.ts). Observations built
   * elsewhere may leave it out.
   */
  readonly firstTurns?: readonly number[];
  /** Labels already committed. */
  readonly held: readonly number[];
}

/**
 * The session rules of paper §3.1 / Appendix B.1 as a pure state machine.
 *
 * M_t is `held`, b_t = budget - |M_t|. At each arriving item of class c:
 * - c in M_t: the item is credited automatically, no decision ('credit');
 * - otherwise, b_t > 0: the agent decides ('decide'): commit adds c to M,
 *   spends one unit of budget and credits the item; pass forfeits it;
 * - otherwise (b_t = 0): no decision and no credit ('closed').
 * With a visible charge K, each commitment costs K once: net = credited - K * commitments.
 */

export type Action = 'commit' | 'pass';

export type TurnKind = 'credit' | 'decide' | 'closed';

export interface SessionRules {
  readonly budget: number;
  readonly charge: number;
}

export interface SessionState extends SessionRules {
  /** Items seen so far. */
  readonly turn: number;
  /** Committed classes, in commitment order. */
  readonly held: readonly number[];
  /** Items credited so far. */
  readonly credited: number;
}

export function startSession(rules: SessionRules): SessionState {
  return { budget: rules.budget, charge: rules.charge, turn: 0, held: [], credited: 0 };
}

export function remainingBudget(state: SessionState): number {
  return state.budget - state.held.length;
}

export function netUtility(state: SessionState): number {
  return state.credited - state.charge * state.held.length;
}

/** What the next item, of class `classId`, asks of the agent. */
export function turnKind(state: SessionState, classId: number): TurnKind {
  if (state.held.includes(classId)) return 'credit';
  return remainingBudget(state) > 0 ? 'decide' : 'closed';
}

/**
 * Consumes the next item. `action` is required exactly when the turn is a
 * decision; a decision without one is a programming error, not a default.
 */
export function advance(state: SessionState, classId: number, action?: Action): SessionState {
  const kind = turnKind(state, classId);
  if ((kind === 'decide') !== (action !== undefined)) {
    throw new Error(`turn ${state.turn + 1} is '${kind}': an action is ${kind === 'decide' ? 'required' : 'not allowed'}`);
  }
  // Explicit literals rather than spreads: this is the simulator's hot path.
  const { budget, charge, held, credited } = state;
  const turn = state.turn + 1;
  if (kind === 'credit') return { budget, charge, turn, held, credited: credited + 1 };
  if (action === 'commit') return { budget, charge, turn, held: [...held, classId], credited: credited + 1 };
  return { budget, charge, turn, held, credited };
}

/** Rules plus what the agent is told about the class count. */
export interface SessionSetting extends SessionRules {
  /** N when disclosed to the agent, else null. */
  readonly classCount: number | null;
}

import { describe, expect, it } from 'vitest';
import { advance, netUtility, remainingBudget, startSession, turnKind } from '../../../core/session/session-state.js';

describe('session rules', () => {
  it('asks for a decision on an unheld class while budget remains', () => {
    const state = startSession({ budget: 1, charge: 0 });
    expect(turnKind(state, 4)).toBe('decide');
  });

  it('credits a committed item and every later item of the class without a decision', () => {
    let state = startSession({ budget: 1, charge: 0 });
    state = advance(state, 4, 'commit');
    expect(state).toMatchObject({ turn: 1, held: [4], credited: 1 });
    expect(remainingBudget(state)).toBe(0);
    expect(turnKind(state, 4)).toBe('credit');
    state = advance(state, 4);
    expect(state.credited).toBe(2);
  });

  it('forfeits a passed item and keeps the budget', () => {
    const state = advance(startSession({ budget: 2, charge: 0 }), 1, 'pass');
    expect(state).toMatchObject({ turn: 1, held: [], credited: 0 });
    expect(remainingBudget(state)).toBe(2);
  });

  it('stops decisions at b = 0 but keeps crediting held classes', () => {
    let state = startSession({ budget: 1, charge: 0 });
    state = advance(state, 0, 'commit');
    expect(turnKind(state, 1)).toBe('closed');
    state = advance(state, 1);
    state = advance(state, 0);
    expect(state).toMatchObject({ turn: 3, held: [0], credited: 2 });
  });

  it('charges K once per commitment in the economic variant', () => {
    let state = startSession({ budget: 2, charge: 10 });
    state = advance(state, 0, 'commit');
    state = advance(state, 0);
    state = advance(state, 1, 'commit');
    expect(netUtility(state)).toBe(3 - 2 * 10);
  });

  it('refuses an action where none is allowed, and a decision without one', () => {
    const state = advance(startSession({ budget: 1, charge: 0 }), 0, 'commit');
    expect(() => advance(state, 0, 'pass')).toThrow(/is 'credit'/);
    expect(() => advance(state, 1, 'commit')).toThrow(/is 'closed'/);
    expect(() => advance(startSession({ budget: 1, charge: 0 }), 0)).toThrow(/required/);
  });
});

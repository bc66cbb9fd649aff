import { describe, expect, it } from 'vitest';
import { callsPerTurn } from '../../importer/decision-session.js';

/*
 * A stored efr4 session's usage list has one entry per call and no turn
 * index. Re-asks repeat the turn plus a reminder of a few dozen tokens; a new
 * turn adds a reply and a problem (hundreds).
 */
describe('provider calls per stored turn', () => {
  const turn = (reminded: boolean, unresolved = false) => ({ reminded, unresolved });

  it('splits the calls of re-asked turns where the input stops growing by a reminder', () => {
    // Turn 1: one call. Turn 2: asked 3 times (+37, +42). Turn 3: unresolved, all 4. Turn 4: asked twice.
    const inputs = [600, 750, 787, 792, 950, 987, 992, 992, 1150, 1187];
    expect(callsPerTurn([turn(false), turn(true), turn(true, true), turn(true)], inputs, 4)).toEqual({ calls: [1, 3, 4, 2], exact: true });
  });

  it('falls back on the counts alone, and says so, when the input does not show the split (a full context window)', () => {
    const inputs = [8100, 8150, 8170, 8160, 8180, 8190];
    const result = callsPerTurn([turn(true), turn(true), turn(false)], inputs, 4);
    expect(result.exact).toBe(false);
    expect(result.calls.reduce((sum, n) => sum + n, 0)).toBe(inputs.length);
    expect(result.calls[2]).toBe(1);
  });
});

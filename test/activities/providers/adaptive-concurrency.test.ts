import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AimdController, DEFAULT_DECREASE } from '../../../activities/providers/adaptive-concurrency.js';

const controller = (ceiling: number, floor = 1) => new AimdController({ floor, ceiling, decrease: DEFAULT_DECREASE });

/** Answers `n` calls; returns the changes they made. */
function answer(aimd: AimdController, n: number) {
  return Array.from({ length: n }, (_, i) => aimd.answered(i, true)).filter((change) => change !== undefined);
}

describe('AimdController', () => {
  it('starts at the ceiling and halves on a throttled reply, saying why', () => {
    const aimd = controller(12);
    expect(aimd.limit).toBe(12);
    expect(aimd.throttled(aimd.started(), '429', 1000)).toEqual({ atMs: 1000, from: 12, to: 6, cause: '429' });
    expect(aimd.limit).toBe(6);
  });

  it('cuts once for a burst of throttled replies to calls sent under the same limit, again for a call sent after the cut', () => {
    const aimd = controller(16);
    const burst = Array.from({ length: 10 }, () => aimd.started());
    const changes = burst.map((epoch, i) => aimd.throttled(epoch, '429', i));
    expect(changes.filter(Boolean)).toHaveLength(1);
    expect(aimd.limit).toBe(8);
    aimd.throttled(aimd.started(), '529', 20);
    expect(aimd.limit).toBe(4);
    expect(aimd.state()).toMatchObject({ limit: 4, cuts: 2, throttled: 11 });
  });

  it('never falls below the floor', () => {
    const aimd = controller(8, 2);
    for (let i = 0; i < 10; i++) aimd.throttled(aimd.started(), '429', i);
    expect(aimd.limit).toBe(2);
    expect(aimd.state().cuts).toBe(10);
  });

  it('grows by one per round of `limit` answered calls, and never past the ceiling', () => {
    const aimd = controller(10);
    aimd.throttled(aimd.started(), '429', 0);
    expect(aimd.limit).toBe(5);
    // 5 → 6 takes five answers (1/5 each), 6 → 7 six more.
    expect(answer(aimd, 4)).toEqual([]);
    expect(answer(aimd, 1)).toEqual([{ atMs: 0, from: 5, to: 6, cause: 'recovered' }]);
    expect(answer(aimd, 5)).toEqual([]);
    expect(answer(aimd, 1).map((c) => c.to)).toEqual([7]);
    answer(aimd, 1000);
    expect(aimd.limit).toBe(10);
  });

  it('is not raised by answers while no call waits for a place', () => {
    const aimd = controller(10);
    aimd.throttled(aimd.started(), '429', 0);
    for (let i = 0; i < 100; i++) expect(aimd.answered(i, false)).toBeUndefined();
    expect(aimd.limit).toBe(5);
  });

  it('keeps the latest changes, oldest first', () => {
    const aimd = controller(1024);
    for (let i = 0; i < 12; i++) aimd.throttled(aimd.started(), '429', i);
    const { recent } = aimd.state();
    expect(recent).toHaveLength(8);
    expect(recent.map((c) => c.atMs)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(recent.at(-1)).toMatchObject({ from: 2, to: 1 });
  });

  it('refuses settings out of range', () => {
    expect(() => new AimdController({ floor: 0, ceiling: 4, decrease: 0.5 })).toThrow(RangeError);
    expect(() => new AimdController({ floor: 5, ceiling: 4, decrease: 0.5 })).toThrow(RangeError);
    expect(() => new AimdController({ floor: 1, ceiling: 4, decrease: 1 })).toThrow(RangeError);
  });

  it('against a server that admits k calls at once and throttles the rest, settles between about k/2 and k + 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 4 }), (k, over) => {
        // Rounds of as many calls as the limit allows (more sessions than k are waiting): the first k answered, the rest throttled.
        const aimd = controller(k * over + 1);
        const limits: number[] = [];
        for (let round = 0; round < 40 * k; round++) {
          const sent = Array.from({ length: aimd.limit }, () => aimd.started());
          sent.forEach((epoch, i) => (i < k ? aimd.answered(round, true) : aimd.throttled(epoch, '429', round)));
          limits.push(aimd.limit);
        }
        const settled = limits.slice(10);
        expect(Math.max(...settled)).toBeLessThanOrEqual(k + 1);
        expect(Math.min(...settled)).toBeGreaterThanOrEqual(Math.max(1, Math.floor((k + 1) * DEFAULT_DECREASE)));
      }),
    );
  });
});

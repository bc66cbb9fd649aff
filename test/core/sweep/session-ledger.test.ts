import { describe, expect, it } from 'vitest';
import { SessionLedger } from '../../../core/sweep/session-ledger.js';

describe('a sweep keeper’s ledger', () => {
  it('goes on from a heartbeat: the sessions started and not ended, the counts, the next position', () => {
    const ledger = SessionLedger.resume(20, undefined);
    const taken = Array.from({ length: 12 }, () => ledger.take());
    expect(taken).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    ledger.end(0, 'finished');
    ledger.end(2, 'stopped');
    ledger.end(3, 'mechanical-failure');
    ledger.end(9, 'failed');
    ledger.end(11, 'cancelled');
    ledger.end(3, 'finished'); // a second report of an ended session is not counted again

    // Through JSON, as a heartbeat carries it.
    const again = SessionLedger.resume(20, JSON.parse(JSON.stringify(ledger.state())));
    expect(again.inFlight()).toEqual([1, 4, 5, 6, 7, 8, 10]);
    // Each ending its own count: a session stopped by a cost cap or failed mechanically is not finished.
    expect(again.counts()).toEqual({ finished: 1, stopped: 1, mechanicalFailures: 1, failed: 1, cancelled: 1 });
    expect(again.take()).toBe(12);
    expect(again.hasEnded(3)).toBe(true);
    expect(again.hasEnded(12)).toBe(false);
  });

  it('starts afresh from details that are not a ledger of its list', () => {
    const ledger = SessionLedger.resume(8, undefined);
    ledger.take();
    ledger.end(0, 'finished');
    const state = ledger.state();
    for (const details of [null, 'x', { ...state, size: 9 }, { ...state, next: 9 }, { ...state, ended: 'zz' }, { ...state, failed: -1 }]) {
      const fresh = SessionLedger.resume(8, details);
      expect(fresh.next).toBe(0);
      expect(fresh.counts()).toEqual({ finished: 0, stopped: 0, mechanicalFailures: 0, failed: 0, cancelled: 0 });
    }
  });

  it('runs out after its last position', () => {
    const ledger = SessionLedger.resume(2, undefined);
    expect([ledger.take(), ledger.take(), ledger.take()]).toEqual([0, 1, undefined]);
  });
});

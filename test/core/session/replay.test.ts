import { describe, expect, it } from 'vitest';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { nextDecisionPoint, withTruncatedTail } from '../../../core/session/replay.js';
import { runSession } from '../../../core/session/run-session.js';
import type { DecisionRecord } from '../../../core/session/session-record.js';
import { drawClassSequence } from '../../../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG } from '../../../core/stream/stream-config.js';

const setting = { budget: 2, charge: 0, classCount: 8 };
const classes = [5, 2, 5, 7, 5, 2, 3, 5];

describe('nextDecisionPoint', () => {
  it('walks the same decision turns, observations included, as the in-process engine', () => {
    for (let seed = 0; seed < 20; seed++) {
      const { classes: sequence } = drawClassSequence(seed, DEFAULT_STREAM_CONFIG);
      const seen: unknown[] = [];
      const record = runSession(
        sequence,
        { ...setting, budget: 3 },
        {
          name: 'spy',
          decide: (o) => {
            seen.push({ ...o, counts: [...o.counts], held: [...o.held] });
            return commitAtK(2).decide(o);
          },
        },
      );
      record.decisions.forEach((decision, i) => {
        const point = nextDecisionPoint(sequence, { ...setting, budget: 3 }, record.decisions.slice(0, i));
        expect(point?.t).toBe(decision.t);
        expect(point?.observation).toEqual(seen[i]);
      });
      expect(nextDecisionPoint(sequence, { ...setting, budget: 3 }, record.decisions)).toBeNull();
    }
  });

  it('reports the automatic credits since the last decision', () => {
    // t1 5 pass · t2 2 pass · t3 5 commit · t4 7 (decision) after nothing auto · t5 5 auto · t6 2 (decision).
    const decisions: DecisionRecord[] = [
      { t: 1, classId: 5, occurrence: 1, action: 'pass', resolved: true },
      { t: 2, classId: 2, occurrence: 1, action: 'pass', resolved: true },
      { t: 3, classId: 5, occurrence: 2, action: 'commit', resolved: true },
      { t: 4, classId: 7, occurrence: 1, action: 'pass', resolved: true },
    ];
    const point = nextDecisionPoint(classes, setting, decisions);
    expect(point).toMatchObject({ t: 6, autoCredited: [{ t: 5, label: 0 }] });
    expect(point).not.toHaveProperty('previous');
    expect(point?.observation).toMatchObject({ label: 1, occurrence: 2, remaining: 1, held: [0] });
  });

  it('refuses more decisions than the stream has decision turns', () => {
    const passes = Array.from({ length: 9 }, () => ({ action: 'pass' as const }));
    expect(() => nextDecisionPoint(classes, setting, passes)).toThrow(/1 decisions fall after the last decision turn/);
  });
});

describe('withTruncatedTail', () => {
  it('passes every decision turn a stopped session never reached, marked truncated', () => {
    const decided: DecisionRecord[] = [{ t: 1, classId: 5, occurrence: 1, action: 'pass', resolved: true }];
    const complete = withTruncatedTail(classes, setting, decided);
    expect(complete.map((d) => d.t)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(complete.slice(1).every((d) => d.action === 'pass' && d.failure === 'truncated' && !d.resolved)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { hindsightOptimum } from '../../../core/metrics/hindsight-optimum.js';
import { bayesPolicy } from '../../../core/policies/bayes.js';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { hindsightPolicy } from '../../../core/policies/hindsight.js';
import type { Policy } from '../../../core/policies/policy.js';
import { parsePolicySpec } from '../../../core/policies/registry.js';
import type { Observation } from '../../../core/session/observation.js';
import { runSession } from '../../../core/session/run-session.js';

const classes = [5, 2, 5, 7, 5, 2, 3, 5];
const setting = { budget: 2, charge: 0, classCount: 8 };

/** An observation at turn `turn` after seeing `history` (labels by first appearance), current class last. */
function observe(history: readonly number[], overrides: Partial<Observation> = {}): Observation {
  const labels = new Map<number, number>();
  const counts: number[] = [];
  for (const c of history) {
    if (!labels.has(c)) labels.set(c, labels.size);
    const label = labels.get(c) as number;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  const label = labels.get(history.at(-1) as number) as number;
  return {
    turn: history.length,
    horizon: 60,
    budget: 3,
    remaining: 3,
    charge: 0,
    classCount: 8,
    label,
    occurrence: counts[label] as number,
    counts,
    held: [],
    ...overrides,
  };
}

describe('runSession', () => {
  it('shows the policy labels by first appearance and occurrence counts, never class ids', () => {
    const seen: { label: number; occurrence: number; counts: number[]; remaining: number }[] = [];
    const recorder: Policy = {
      name: 'recorder',
      decide: (o) => {
        seen.push({ label: o.label, occurrence: o.occurrence, counts: [...o.counts], remaining: o.remaining });
        return o.turn === 3 ? 'commit' : 'pass';
      },
    };
    const record = runSession(classes, setting, recorder);
    // Class 5 commits at t3; 2, 7 and 3 keep asking while one unit of budget remains.
    expect(seen).toEqual([
      { label: 0, occurrence: 1, counts: [1], remaining: 2 },
      { label: 1, occurrence: 1, counts: [1, 1], remaining: 2 },
      { label: 0, occurrence: 2, counts: [2, 1], remaining: 2 },
      { label: 2, occurrence: 1, counts: [2, 1, 1], remaining: 1 },
      { label: 1, occurrence: 2, counts: [3, 2, 1], remaining: 1 },
      { label: 3, occurrence: 1, counts: [3, 2, 1, 1], remaining: 1 },
    ]);
    expect(record.decisions.map((d) => d.t)).toEqual([1, 2, 3, 4, 6, 7]);
    expect(sessionMetrics(record).utility).toBe(3);
  });
});

describe('commit-at-k and eager', () => {
  it('commits exactly from the k-th occurrence', () => {
    const atTwo = commitAtK(2);
    expect(atTwo.decide(observe([1]))).toBe('pass');
    expect(atTwo.decide(observe([1, 4, 1]))).toBe('commit');
    expect(atTwo.decide(observe([1, 1, 1]))).toBe('commit');
    expect(commitAtK(1).decide(observe([9]))).toBe('commit');
    expect(commitAtK(1).name).toBe('eager');
  });

  it('plays the hand-built stream as worked out by hand', () => {
    // commit-at-2: t3 commits 5 (2nd), t6 commits 2 (2nd); credited t3 t5 t6 t8 = 4.
    expect(sessionMetrics(runSession(classes, setting, commitAtK(2)))).toMatchObject({ utility: 4, firstSightRate: 0, meanLateness: 1 });
    // eager: t1 commits 5, t2 commits 2; credited t1 t2 t3 t5 t6 t8 = 6, the optimum.
    expect(sessionMetrics(runSession(classes, setting, commitAtK(1)))).toMatchObject({ utility: 6, firstSightRate: 1 });
  });

  it('rejects a k below 1', () => {
    expect(() => commitAtK(0)).toThrow(RangeError);
  });
});

describe('hindsight', () => {
  it('reaches the optimum, at and above K = 0', () => {
    for (const charge of [0, 1.5, 2, 5]) {
      const rules = { budget: 2, charge };
      const metrics = sessionMetrics(runSession(classes, { ...rules, classCount: 8 }, hindsightPolicy(classes, rules)));
      expect(metrics.net).toBe(hindsightOptimum(classes, 2, charge));
      expect(metrics.regret).toBe(0);
    }
  });
});

describe('bayes comparator', () => {
  // A 30-item horizon keeps the exact tables small (test/core/policies/bayes-dp.test.ts checks them against brute force).
  const bayes = bayesPolicy(1);
  const short = { horizon: 30 };

  it('commits at first sight when there are no more unheld classes than slots', () => {
    const o = observe([1, 2], { ...short, classCount: 3 });
    expect(bayes.decide(o)).toBe('commit');
  });

  it('commits a clearly frequent class and passes a late first sight against established rivals', () => {
    expect(bayes.decide(observe([1, 1, 1, 2, 1, 1], short))).toBe('commit');
    const established = [...Array.from({ length: 6 }, () => [1, 2, 3]).flat(), 4];
    expect(bayes.decide(observe(established, short))).toBe('pass');
  });

  it('takes the last item at K = 0, passes it at K = 1 (a tie) and above', () => {
    const last = observe([1, 2, 3], { horizon: 3 });
    expect(bayes.decide(last)).toBe('commit');
    expect(bayes.decide({ ...last, charge: 1 })).toBe('pass');
    expect(bayes.decide({ ...last, charge: 2 })).toBe('pass');
  });

  it('declines to build when the charge exceeds any plausible reuse', () => {
    expect(bayes.decide(observe([1, 2, 1], { ...short, charge: 200 }))).toBe('pass');
  });

  it('is a pure function of the observation', () => {
    const o = observe([3, 1, 4, 1, 5], short);
    expect(bayesPolicy(1).decide(o)).toBe(bayesPolicy(1).decide(o));
  });

  it('needs N to be disclosed', () => {
    expect(() => bayes.decide(observe([1], { classCount: null }))).toThrow(/number of classes N/);
  });
});

describe('parsePolicySpec', () => {
  it('parses the reference policies and rejects unknown names', () => {
    expect(parsePolicySpec('commit-at-k', { k: 3 })).toEqual({ name: 'commit-at-k', k: 3 });
    expect(parsePolicySpec('bayes')).toEqual({ name: 'bayes', alpha: 1 });
    expect(() => parsePolicySpec('commit-at-k')).toThrow(/--k: required/);
    expect(() => parsePolicySpec('greedy')).toThrow(/unknown policy 'greedy'/);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { BayesTable, bayesTable, type BayesSetting } from '../../../core/policies/bayes-dp.js';
import { bayesPolicy, bayesRealized } from '../../../core/policies/bayes.js';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import type { Policy } from '../../../core/policies/policy.js';
import { runSession } from '../../../core/session/run-session.js';

interface Small {
  readonly T: number;
  readonly N: number;
  readonly B: number;
  readonly K: number;
  readonly alpha: number;
}

const settingOf = ({ T, N, B, K, alpha }: Small, cap: number | null = null): BayesSetting => ({
  horizon: T,
  budget: B,
  charge: K,
  classCount: N,
  alpha,
  cap,
});

/** Every class sequence of length T over N classes with its Dirichlet-multinomial probability. */
function sequences(T: number, N: number, alpha: number): { classes: number[]; p: number }[] {
  let out = [{ classes: [] as number[], p: 1 }];
  for (let s = 0; s < T; s++) {
    out = out.flatMap(({ classes, p }) =>
      Array.from({ length: N }, (_, c) => ({
        classes: [...classes, c],
        p: (p * (alpha + classes.filter((x) => x === c).length)) / (N * alpha + s),
      })),
    );
  }
  return out;
}

function expectedNet(policy: Policy, small: Small): number {
  const { T, N, B, K, alpha } = small;
  return sequences(T, N, alpha).reduce(
    (sum, { classes, p }) => sum + p * sessionMetrics(runSession(classes, { budget: B, charge: K, classCount: N }, policy)).net,
    0,
  );
}

/**
 * Backward induction over the whole history tree (class ids, not belief
 * states): the best expected net of any history-dependent policy from here.
 */
function bruteForce(small: Small, history: readonly number[], built: ReadonlySet<number>): number {
  const { T, N, alpha } = small;
  if (history.length >= T) return 0;
  let v = 0;
  for (let c = 0; c < N; c++) {
    const p = (alpha + history.filter((x) => x === c).length) / (N * alpha + history.length);
    const { pass, build } = bruteChoice(small, history, built, c);
    v += p * (built.has(c) ? 1 + pass : Math.max(pass, build));
  }
  return v;
}

/** The values of passing and of building class c arriving after `history` (build: -Infinity without budget). */
function bruteChoice(small: Small, history: readonly number[], built: ReadonlySet<number>, c: number) {
  const next = [...history, c];
  const pass = bruteForce(small, next, built);
  const build = built.size < small.B ? 1 - small.K + bruteForce(small, next, new Set([...built, c])) : -Infinity;
  return { pass, build };
}

/**
 * The best of all deterministic policies listed one by one: a policy is one
 * action per history prefix (labels by first appearance), and its expectation
 * is played out on every sequence under the session rules.
 */
function bestListedPolicy(small: Small): number {
  const { T, N, B, K, alpha } = small;
  const all = sequences(T, N, alpha);
  const canonical = (classes: readonly number[]) => {
    const labels = new Map<number, number>();
    return classes.map((c) => (labels.has(c) ? labels.get(c) : (labels.set(c, labels.size), labels.size - 1))).join('');
  };
  const nodes = [...new Set(all.flatMap(({ classes }) => classes.map((_, t) => canonical(classes.slice(0, t + 1)))))];
  let best = -Infinity;
  for (let mask = 0; mask < 2 ** nodes.length; mask++) {
    let value = 0;
    for (const { classes, p } of all) {
      const held = new Set<number>();
      let net = 0;
      classes.forEach((c, t) => {
        if (held.has(c)) net += 1;
        else if (held.size < B && mask & (1 << nodes.indexOf(canonical(classes.slice(0, t + 1))))) {
          held.add(c);
          net += 1 - K;
        }
      });
      value += p * net;
    }
    best = Math.max(best, value);
  }
  return best;
}

const root = { built: 0, builtItems: 0, unbuilt: [] };

describe('the exact Bayes DP against brute force', () => {
  const cases: Small[] = [
    { T: 5, N: 3, B: 1, K: 0, alpha: 1 },
    { T: 5, N: 3, B: 1, K: 1, alpha: 1 },
    { T: 5, N: 3, B: 2, K: 0.5, alpha: 0.5 },
    { T: 5, N: 3, B: 2, K: 2, alpha: 2 },
    { T: 6, N: 2, B: 1, K: 1.5, alpha: 1 },
  ];

  it.each(cases)('its value is the best expected net of any policy and the policy attains it: %o', (small) => {
    const best = bruteForce(small, [], new Set());
    expect(bayesTable(settingOf(small)).value(root)).toBeCloseTo(best, 12);
    expect(expectedNet(bayesPolicy(small.alpha), small)).toBeCloseTo(best, 12);
  });

  it('beats or ties every deterministic policy, listed one by one', () => {
    for (const small of [
      { T: 3, N: 3, B: 1, K: 0, alpha: 1 },
      { T: 3, N: 3, B: 2, K: 0.5, alpha: 1 },
      { T: 4, N: 2, B: 1, K: 0, alpha: 1 },
      { T: 4, N: 2, B: 1, K: 1, alpha: 0.5 },
    ]) {
      const best = bestListedPolicy(small);
      expect(best).toBeCloseTo(bruteForce(small, [], new Set()), 12);
      expect(expectedNet(bayesPolicy(small.alpha), small)).toBeCloseTo(best, 12);
    }
  });

  it('builds exactly where building is strictly better, and passes on ties, in every state', () => {
    // K = 1 makes the last item a tie (worth 1 - K = 0 either way).
    const small = { T: 5, N: 3, B: 2, K: 1, alpha: 1 };
    const table = bayesTable(settingOf(small));
    let [states, ties] = [0, 0];
    for (let s = 0; s < small.T; s++) {
      for (const { classes: history } of sequences(s, small.N, small.alpha)) {
        const counts = Array.from({ length: small.N }, (_, c) => history.filter((x) => x === c).length);
        const seen = counts.flatMap((n, c) => (n > 0 ? [c] : []));
        // Every set of built classes the rules allow: seen ones, with budget left.
        for (let mask = 0; mask < 2 ** seen.length; mask++) {
          const built = new Set(seen.filter((_, i) => mask & (1 << i)));
          if (built.size >= small.B) continue;
          const state = {
            built: built.size,
            builtItems: [...built].reduce((sum, c) => sum + (counts[c] as number), 0),
            unbuilt: seen.filter((c) => !built.has(c)).map((c) => counts[c] as number),
          };
          for (let c = 0; c < small.N; c++) {
            if (built.has(c)) continue;
            const brute = bruteChoice(small, history, built, c);
            const choice = table.choose(state, counts[c] as number);
            expect(choice.pass).toBeCloseTo(brute.pass, 12);
            expect(choice.build).toBeCloseTo(brute.build, 12);
            const tie = Math.abs(brute.build - brute.pass) < 1e-12;
            expect(choice.commit).toBe(brute.build > brute.pass && !tie);
            states++;
            if (tie) ties++;
          }
        }
      }
    }
    expect(states).toBeGreaterThan(500);
    expect(ties).toBeGreaterThan(0);
  });

  it('reports a tie at the last item as equal values, and passes', () => {
    const table = bayesTable(settingOf({ T: 5, N: 3, B: 1, K: 1, alpha: 1 }));
    const choice = table.choose({ built: 0, builtItems: 0, unbuilt: [2, 1, 1] }, 2);
    expect(choice.build).toBe(choice.pass);
    expect(choice.commit).toBe(false);
  });
});

describe('the exact Bayes policy in expectation', () => {
  it('never does worse than commit-at-2 or eager, and attains its own value', () => {
    fc.assert(
      fc.property(
        fc.record({
          T: fc.integer({ min: 1, max: 6 }),
          N: fc.integer({ min: 1, max: 3 }),
          B: fc.integer({ min: 1, max: 3 }),
          K: fc.constantFrom(0, 0.5, 1, 2, 3),
          alpha: fc.constantFrom(0.5, 1, 2),
        }),
        (small) => {
          const bayes = expectedNet(bayesPolicy(small.alpha), small);
          expect(bayes).toBeCloseTo(bayesTable(settingOf(small)).value(root), 10);
          expect(bayes).toBeGreaterThanOrEqual(expectedNet(commitAtK(2), small) - 1e-10);
          expect(bayes).toBeGreaterThanOrEqual(expectedNet(commitAtK(1), small) - 1e-10);
        },
      ),
      { numRuns: 60, seed: 7 },
    );
  });
});

/** The authors' formulation: the built classes kept as a multiset of counts, states in a Map of string keys. */
function multisetDp(setting: BayesSetting): number {
  const { horizon: T, budget: B, charge: K, classCount: N, alpha, cap } = setting;
  const memo = new Map<string, number>();
  const sorted = (xs: number[]) => [...xs].sort((a, b) => b - a);
  const value = (built: number[], unbuilt: number[]): number => {
    const s = [...built, ...unbuilt].reduce((a, b) => a + b, 0);
    if (s >= T) return 0;
    const key = `${built.join(',')}|${unbuilt.join(',')}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const draws = N * alpha + s;
    let v = 0;
    built.forEach((c, i) => {
      v += ((alpha + c) / draws) * (1 + value(sorted(built.map((x, j) => (j === i ? x + 1 : x))), unbuilt));
    });
    const arrive = (c: number, rest: number[], p: number) => {
      const pass = value(built, sorted([...rest, c + 1]));
      if (built.length >= B) return p * pass;
      const build = 1 - K + value(sorted([...built, c + 1]), rest);
      return p * (cap !== null && c > 0 && c >= cap ? build : Math.max(pass, build));
    };
    unbuilt.forEach((c, i) => {
      v += arrive(
        c,
        unbuilt.filter((_, j) => j !== i),
        (alpha + c) / draws,
      );
    });
    const unseen = N - built.length - unbuilt.length;
    if (unseen > 0) v += unseen * arrive(0, unbuilt, alpha / draws);
    memo.set(key, v);
    return v;
  };
  return value([], []);
}

describe('the belief-state table', () => {
  it('agrees with the multiset formulation (built classes pooled, partitions ranked)', () => {
    for (const cap of [null, 1, 2, 4]) {
      for (const small of [
        { T: 12, N: 4, B: 2, K: 0, alpha: 1 },
        { T: 12, N: 5, B: 3, K: 2.5, alpha: 0.5 },
        { T: 10, N: 3, B: 3, K: 1, alpha: 2 },
      ]) {
        const setting = settingOf(small, cap);
        expect(new BayesTable(setting).value(root), JSON.stringify(setting)).toBeCloseTo(multisetDp(setting), 10);
      }
    }
  });

  it('solves each state once and counts them beforehand', () => {
    const table = new BayesTable(settingOf({ T: 20, N: 8, B: 3, K: 0, alpha: 1 }));
    table.value(root);
    expect(table.size).toBe(table.stateCount());
    expect(table.bytes).toBe(8 * table.size);
  });

  it('forces a build at the cap, whatever the charge, and never beats the exact value', () => {
    const small = { T: 20, N: 4, B: 2, K: 0, alpha: 1 };
    const capped = new BayesTable(settingOf({ ...small, K: 100 }, 3));
    expect(capped.choose({ built: 0, builtItems: 0, unbuilt: [3] }, 3).commit).toBe(true);
    expect(new BayesTable(settingOf({ ...small, K: 100 })).choose({ built: 0, builtItems: 0, unbuilt: [3] }, 3).commit).toBe(false);
    for (const cap of [1, 2, 3]) {
      expect(new BayesTable(settingOf(small, cap)).value(root)).toBeLessThanOrEqual(new BayesTable(settingOf(small)).value(root) + 1e-12);
    }
  });

  it('answers an off-policy history beyond the cap exactly', () => {
    const setting = settingOf({ T: 12, N: 3, B: 1, K: 0, alpha: 1 }, 2);
    // A class seen 4 times, unbuilt: the capped policy never lets this happen itself.
    const value = new BayesTable(setting).value({ built: 0, builtItems: 0, unbuilt: [4, 1] });
    expect(value).toBeGreaterThan(0);
    expect(new BayesTable(setting).value({ built: 0, builtItems: 0, unbuilt: [1, 4] })).toBe(value);
  });

  it('refuses a table too large to solve, and bad settings', () => {
    expect(() => bayesTable(settingOf({ T: 80, N: 8, B: 3, K: 0, alpha: 1 }))).toThrow(/4\.27e\+7 states .* set a cap/);
    expect(() => bayesTable(settingOf({ T: 80, N: 8, B: 3, K: 0, alpha: 1 }, 5))).not.toThrow();
    expect(() => bayesTable(settingOf({ T: 10, N: 3, B: 1, K: 0, alpha: 0 }))).toThrow(/alpha must be positive/);
    expect(() => bayesPolicy(1, { cap: 0 })).toThrow(/cap must be a positive integer/);
  });
});

describe('bayesRealized', () => {
  it('plays the policy on a sequence and scores it under the session rules', () => {
    const classes = [5, 2, 5, 7, 5, 2, 3, 5, 5, 2];
    const setting = { budget: 2, charge: 1, classCount: 8 };
    const metrics = sessionMetrics(runSession(classes, setting, bayesPolicy(1)));
    expect(bayesRealized(classes, setting, 1)).toEqual({ collected: metrics.utility, net: metrics.net, commitments: metrics.commitments });
    expect(metrics.net).toBe(metrics.utility - metrics.commitments);
  });
});

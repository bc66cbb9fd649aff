import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { bayesPolicy } from '../../../core/policies/bayes.js';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { OptimalTable, type SeenClass } from '../../../core/policies/optimal-dp.js';
import {
  BENCHMARK_RECIPE,
  optimalChoice,
  optimalPolicy,
  optimalRealized,
  optimalStateBefore,
  recipeOf,
} from '../../../core/policies/optimal.js';
import type { Policy } from '../../../core/policies/policy.js';
import { describePolicy, parsePolicySpec, policyFactory, POLICY_NAMES } from '../../../core/policies/registry.js';
import type { Observation } from '../../../core/session/observation.js';
import { runSession } from '../../../core/session/run-session.js';
import { drawClassSequence } from '../../../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG, parseStreamConfig } from '../../../core/stream/stream-config.js';

/** What a policy sees after `history` (class ids, the current one last). */
function observe(history: readonly number[], held: readonly number[] = [], overrides: Partial<Observation> = {}): Observation {
  const labels = new Map<number, number>();
  const counts: number[] = [];
  const firstTurns: number[] = [];
  history.forEach((c, t) => {
    if (!labels.has(c)) {
      labels.set(c, labels.size);
      firstTurns.push(t + 1);
    }
    const label = labels.get(c) as number;
    counts[label] = (counts[label] ?? 0) + 1;
  });
  const label = labels.get(history.at(-1) as number) as number;
  const heldLabels = held.map((c) => labels.get(c) as number);
  return {
    turn: history.length,
    horizon: 60,
    budget: 3,
    remaining: 3 - held.length,
    charge: 0,
    classCount: 8,
    label,
    occurrence: counts[label] as number,
    counts,
    firstTurns,
    held: heldLabels,
    ...overrides,
  };
}

describe('the state the policy decides from', () => {
  it('marks the classes first seen within the trap window, from the labels’ first turns', () => {
    // A B A C C: C arrives for the second time at t = 5; A and B were in the first 3 items, C was not.
    const o = observe([5, 2, 5, 7, 7], [2]);
    expect(optimalStateBefore(o, 3)).toEqual({
      classes: [
        { count: 2, built: false, window: true },
        { count: 1, built: true, window: true },
        { count: 1, built: false, window: false },
      ],
      arriving: 2,
    });
    // A class never seen before arrives: it is not in the state.
    expect(optimalStateBefore(observe([5, 2, 5, 7]), 3)).toEqual({
      classes: [
        { count: 2, built: false, window: true },
        { count: 1, built: false, window: true },
      ],
      arriving: -1,
    });
  });

  it('needs the first turns only once they matter', () => {
    const withoutTurns = (history: number[]): Observation => ({ ...observe(history), firstTurns: undefined });
    expect(optimalStateBefore(withoutTurns([5, 2, 5, 7]), 3).classes.every((c) => c.window)).toBe(true);
    expect(() => optimalStateBefore(withoutTurns([5, 2, 5, 7, 7]), 3)).toThrow(/first turns/);
    expect(optimalStateBefore(withoutTurns([5, 5, 5, 5, 7]), 3).classes).toEqual([{ count: 4, built: false, window: true }]);
  });

  it('reads the turns the session engine shows', () => {
    const seen: Observation[] = [];
    const recorder: Policy = { name: 'recorder', decide: (o) => (seen.push({ ...o, firstTurns: [...(o.firstTurns ?? [])] }), 'pass') };
    runSession([5, 2, 5, 7, 7, 2], { budget: 1, charge: 0, classCount: 8 }, recorder);
    expect(seen.map((o) => o.firstTurns)).toEqual([[1], [1, 2], [1, 2], [1, 2, 4], [1, 2, 4], [1, 2, 4]]);
  });
});

describe('the optimal policy', () => {
  it('passes on a first sight and builds a class seen again early, on the paper’s recipe', () => {
    expect(optimalChoice(observe([5], [], { horizon: 24 })).commit).toBe(false);
    const second = optimalChoice(observe([5, 2, 7, 5], [], { horizon: 24 }));
    expect(second.commit).toBe(true);
    expect(second.build).toBeGreaterThan(second.pass);
  });

  it('plays through runSession, and optimalRealized scores it', () => {
    const classes = drawClassSequence(2000, DEFAULT_STREAM_CONFIG).classes.slice(0, 24);
    const setting = { budget: 3, charge: 2, classCount: 8 };
    const metrics = sessionMetrics(runSession(classes, setting, optimalPolicy()));
    expect(optimalRealized(classes, setting)).toEqual({ collected: metrics.utility, net: metrics.net, commitments: metrics.commitments });
    expect(metrics.net).toBe(metrics.utility - 2 * metrics.commitments);
  });

  it('takes its recipe from a stream config', () => {
    const config = parseStreamConfig({ budget: 5, hotCount: 2, hotMass: 0.7 });
    expect(recipeOf(config)).toEqual({ classCount: 8, hotCount: 2, hotMass: 0.7, window: 5 });
    expect(recipeOf(DEFAULT_STREAM_CONFIG)).toEqual(BENCHMARK_RECIPE);
    expect(optimalPolicy(recipeOf(config)).name).toBe('optimal(H=2, hot mass=0.7, window=5)');
  });
});

/** A synthetic observation for a table state, so the registry's policies can be evaluated exactly. */
function observationOf(classes: readonly SeenClass[], arriving: number, T: number, B: number, K: number): Observation {
  const counts = classes.map((c) => c.count);
  const label = arriving < 0 ? counts.length : arriving;
  counts[label] = (counts[label] ?? 0) + 1;
  const held = classes.flatMap((c, i) => (c.built ? [i] : []));
  const turn = counts.reduce((a, b) => a + b, 0);
  return {
    turn,
    horizon: T,
    budget: B,
    remaining: B - held.length,
    charge: K,
    classCount: 8,
    label,
    occurrence: counts[label] as number,
    counts,
    held,
  };
}

describe('against every policy of the registry', () => {
  it('is at least as good in exact expectation under the generator (T = 16)', () => {
    for (const [B, K] of [
      [3, 0],
      [1, 0],
      [3, 2],
    ] as const) {
      const T = 16;
      const table = new OptimalTable({ ...BENCHMARK_RECIPE, horizon: T, budget: B, charge: K }, { cut: Infinity });
      const best = table.value([]);
      const policies = [commitAtK(1), commitAtK(2), commitAtK(3), commitAtK(4), commitAtK(5), bayesPolicy(1)];
      for (const policy of policies) {
        const value = table.policyValue((classes, arriving) => policy.decide(observationOf(classes, arriving, T, B, K)) === 'commit');
        expect(value, `${policy.name} B=${B} K=${K}`).toBeLessThanOrEqual(best + 1e-12);
      }
      expect(table.policyValue((classes, arriving) => table.choose(classes, arriving).commit)).toBeCloseTo(best, 12);
    }
  });

  it('is never beaten beyond noise on simulated streams (T = 24, 3000 streams, paired)', () => {
    const config = parseStreamConfig({ length: 24 });
    const setting = { budget: 3, charge: 0, classCount: 8 };
    const others = [commitAtK(1), commitAtK(2), commitAtK(3), commitAtK(4), commitAtK(5), bayesPolicy(1)];
    const optimal = optimalPolicy();
    const differences = others.map(() => [] as number[]);
    for (let seed = 0; seed < 3000; seed++) {
      const classes = drawClassSequence(seed, config).classes;
      const mine = sessionMetrics(runSession(classes, setting, optimal)).net;
      others.forEach((policy, i) => differences[i]?.push(mine - sessionMetrics(runSession(classes, setting, policy)).net));
    }
    others.forEach((policy, i) => {
      const d = differences[i] as number[];
      const mean = d.reduce((a, b) => a + b, 0) / d.length;
      const se = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1) / d.length);
      expect(mean, policy.name).toBeGreaterThan(-3 * se);
    });
  });
});

describe('wiring', () => {
  it('is in the registry', () => {
    expect(POLICY_NAMES).toContain('optimal');
    const spec = parsePolicySpec('optimal');
    expect(spec).toEqual({ name: 'optimal' });
    expect(describePolicy(spec)).toBe('optimal');
    expect(policyFactory(spec, { budget: 3, charge: 0 })([]).name).toBe('optimal');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.js';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { hotTrapRates, predictive, type ClassGroup, type HotTrapRecipe } from '../../../core/policies/hot-trap.js';
import { OptimalTable, type OptimalSetting, type SeenClass } from '../../../core/policies/optimal-dp.js';
import { TwinTable } from '../../../core/policies/optimal-twin.js';
import { optimalPolicy } from '../../../core/policies/optimal.js';
import { runSession } from '../../../core/session/run-session.js';

interface Small {
  readonly T: number;
  readonly N: number;
  readonly H: number;
  readonly m: number;
  readonly W: number;
  readonly B: number;
  readonly K: number;
}

const settingOf = ({ T, N, H, m, W, B, K }: Small): OptimalSetting => ({
  horizon: T,
  budget: B,
  charge: K,
  classCount: N,
  hotCount: H,
  hotMass: m,
  window: W,
});
const recipeOf = ({ N, H, m, W }: Small): HotTrapRecipe => ({ classCount: N, hotCount: H, hotMass: m, window: W });

/**
 * The generator's law by brute force: every sequence of T classes, summed
 * over every hot set, kept when a trap falls in the first W positions (the
 * rejection sampling of core/stream/class-sequence.ts), normalised. Returns
 * the probability of every prefix (key: the classes joined by commas) and the
 * full sequences.
 */
function generatorLaw(small: Small): { prefix: Map<string, number>; sequences: { classes: number[]; p: number }[] } {
  const { T, N, H, m } = small;
  const W = Math.min(small.W, T);
  const { hot, trap } = hotTrapRates(recipeOf(small));
  const hotSets: number[][] = [];
  const choose = (from: number, chosen: number[]) => {
    if (chosen.length === H) hotSets.push(chosen);
    else for (let c = from; c < N; c++) choose(c + 1, [...chosen, c]);
  };
  choose(0, []);
  const prefix = new Map<string, number>();
  const sequences: { classes: number[]; p: number }[] = [];
  for (let code = 0; code < N ** T; code++) {
    const classes = Array.from({ length: T }, (_, t) => Math.floor(code / N ** t) % N);
    let p = 0;
    for (const set of hotSets) {
      let q = 1;
      let earlyTrap = false;
      classes.forEach((c, t) => {
        const isHot = set.includes(c);
        q *= isHot ? hot : trap;
        if (!isHot && t < W) earlyTrap = true;
      });
      if (W === 0 || earlyTrap) p += q;
    }
    p /= hotSets.length * (W === 0 ? 1 : 1 - m ** W);
    sequences.push({ classes, p });
    for (let t = 0; t <= T; t++) {
      const key = classes.slice(0, t).join(',');
      prefix.set(key, (prefix.get(key) ?? 0) + p);
    }
  }
  return { prefix, sequences };
}

/** Backward induction over the history tree (raw class ids): the best expected net of any policy. */
function bruteValue(small: Small, prefix: Map<string, number>, history: readonly number[], built: ReadonlySet<number>): number {
  if (history.length >= small.T) return 0;
  const here = prefix.get(history.join(',')) as number;
  let v = 0;
  for (let c = 0; c < small.N; c++) {
    const p = (prefix.get([...history, c].join(',')) ?? 0) / here;
    if (p === 0) continue;
    const { pass, build } = bruteChoice(small, prefix, history, built, c);
    v += p * (built.has(c) ? 1 + pass : Math.max(pass, build));
  }
  return v;
}

function bruteChoice(small: Small, prefix: Map<string, number>, history: readonly number[], built: ReadonlySet<number>, c: number) {
  const next = [...history, c];
  const pass = bruteValue(small, prefix, next, built);
  const build = built.size < small.B ? 1 - small.K + bruteValue(small, prefix, next, new Set([...built, c])) : -Infinity;
  return { pass, build };
}

/** The table's state for a raw history: counts, built flags, and the window marks (first seen in the first W draws). */
function stateOf(history: readonly number[], built: ReadonlySet<number>, W: number): { classes: SeenClass[]; ids: number[] } {
  const ids: number[] = [];
  const counts = new Map<number, number>();
  history.forEach((c, t) => {
    if (!counts.has(c)) {
      ids.push(c);
      counts.set(c, 0);
      if (t >= W) counts.set(-1 - c, 1); // marks "first seen after the window"
    }
    counts.set(c, (counts.get(c) as number) + 1);
  });
  return { classes: ids.map((c) => ({ count: counts.get(c) as number, built: built.has(c), window: !counts.has(-1 - c) })), ids };
}

const CASES: Small[] = [
  { T: 5, N: 3, H: 1, m: 0.85, W: 3, B: 1, K: 0 },
  { T: 5, N: 3, H: 1, m: 0.7, W: 2, B: 2, K: 1 },
  { T: 5, N: 4, H: 2, m: 0.85, W: 3, B: 2, K: 0.5 },
  { T: 6, N: 3, H: 2, m: 0.6, W: 2, B: 1, K: 0 },
  { T: 4, N: 5, H: 2, m: 0.85, W: 3, B: 2, K: 0 },
  { T: 4, N: 4, H: 3, m: 0.85, W: 4, B: 3, K: 0 },
  { T: 5, N: 4, H: 1, m: 0.2, W: 1, B: 2, K: 0 },
  { T: 6, N: 3, H: 1, m: 0.85, W: 0, B: 2, K: 1.5 },
];

describe('the exact table against brute force over every sequence of the generator', () => {
  it.each(CASES)('its value is the best expected net of any policy, and the policy attains it: %o', (small) => {
    const { prefix, sequences } = generatorLaw(small);
    const best = bruteValue(small, prefix, [], new Set());
    const table = new OptimalTable(settingOf(small), { cut: Infinity });
    expect(table.value([])).toBeCloseTo(best, 12);
    const policy = optimalPolicy(recipeOf(small));
    const setting = { budget: small.B, charge: small.K, classCount: small.N };
    const played = sequences.reduce((sum, { classes, p }) => sum + p * sessionMetrics(runSession(classes, setting, policy)).net, 0);
    expect(played).toBeCloseTo(best, 12);
  });

  it('builds exactly where building is strictly better, and passes on ties, in every state', () => {
    // K = 1 makes the last item a tie (worth 1 - K = 0 either way).
    const small = { T: 5, N: 3, H: 1, m: 0.85, W: 3, B: 2, K: 1 };
    const { prefix } = generatorLaw(small);
    const table = new OptimalTable(settingOf(small), { cut: Infinity });
    let [states, ties] = [0, 0];
    for (let s = 0; s < small.T; s++) {
      for (const [key, p] of prefix) {
        const history = key === '' ? [] : key.split(',').map(Number);
        if (history.length !== s || p === 0) continue;
        const seen = [...new Set(history)];
        for (let mask = 0; mask < 2 ** seen.length; mask++) {
          const built = new Set(seen.filter((_, i) => mask & (1 << i)));
          if (built.size >= small.B) continue;
          const { classes, ids } = stateOf(history, built, small.W);
          for (let c = 0; c < small.N; c++) {
            if (built.has(c) || !prefix.get([...history, c].join(','))) continue;
            const brute = bruteChoice(small, prefix, history, built, c);
            const choice = table.choose(classes, ids.indexOf(c));
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
    expect(states).toBeGreaterThan(200);
    expect(ties).toBeGreaterThan(0);
  });
});

describe('the predictive under the early-trap rejection', () => {
  /** The groups of a raw history: one group per seen class, then the unseen. */
  function groupsOf(history: readonly number[], N: number, W: number): ClassGroup[] {
    const { classes } = stateOf(history, new Set(), W);
    const groups: ClassGroup[] = classes.map((c) => ({ count: c.count, size: 1, built: false, window: c.window }));
    if (classes.length < N) groups.push({ count: 0, size: N - classes.length, built: false, window: false });
    return groups;
  }

  it('is the ratio of the brute-force prefix probabilities, and the window excludes an all-hot window for ever', () => {
    const small = { T: 6, N: 4, H: 2, m: 0.85, W: 3, B: 1, K: 0 };
    const { prefix } = generatorLaw(small);
    const recipe = recipeOf(small);
    for (const [key, p] of prefix) {
      const history = key === '' ? [] : key.split(',').map(Number);
      if (history.length >= small.T || p === 0) continue;
      const law = predictive(groupsOf(history, small.N, small.W), history.length, recipe);
      const { ids } = stateOf(history, new Set(), small.W);
      for (let c = 0; c < small.N; c++) {
        const group = ids.includes(c) ? ids.indexOf(c) : ids.length;
        expect(law.perClass[group] as number).toBeCloseTo((prefix.get([...history, c].join(',')) ?? 0) / p, 12);
      }
    }
    // A window of one class seen three times: that class is a trap, whatever follows.
    const { trap } = hotTrapRates(recipe);
    for (const history of [
      [0, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 1, 1],
    ]) {
      const law = predictive(groupsOf(history, small.N, small.W), history.length, recipe);
      expect(law.perClass[0] as number).toBeCloseTo(trap, 14);
    }
  });

  it('makes the first draw hot with probability m (1 - m^(W-1)) / (1 - m^W)', () => {
    for (const [m, W] of [
      [0.85, 3],
      [0.5, 1],
      [0.9, 5],
    ] as const) {
      const recipe = { classCount: 8, hotCount: 3, hotMass: m, window: W };
      const law = predictive([{ count: 0, size: 8, built: false, window: false }], 0, recipe);
      // Every class is equally likely a priori; P(hot | first draw) by Bayes, summed over the classes.
      const pFirst = law.perClass[0] as number;
      expect(8 * pFirst).toBeCloseTo(1, 14);
      const afterOne = predictive(
        [
          { count: 1, size: 1, built: false, window: true },
          { count: 0, size: 7, built: false, window: false },
        ],
        1,
        recipe,
      );
      const { hot, trap } = hotTrapRates(recipe);
      // P(the first class again) = P(hot | E-first) h' + P(trap | ...) tau', checked through its decomposition.
      const pHot = (m * (1 - m ** (W - 1))) / (1 - m ** W);
      const hotNext = W > 1 ? (hot * (1 - m ** (W - 2))) / (1 - m ** (W - 1)) : hot;
      expect(afterOne.perClass[0] as number).toBeCloseTo(pHot * (W === 1 ? hot : hotNext) + (1 - pHot) * trap, 12);
    }
  });

  it('sums to one, and agrees with the table on the excluded mass, on random states', () => {
    const recipe = { classCount: 8, hotCount: 3, hotMass: 0.85, window: 3 };
    const table = new OptimalTable({ ...recipe, horizon: 60, budget: 3, charge: 0 }, { cut: Infinity });
    fc.assert(
      fc.property(
        fc.array(fc.record({ count: fc.integer({ min: 1, max: 7 }), built: fc.boolean(), window: fc.boolean() }), {
          minLength: 1,
          maxLength: 8,
        }),
        (drawn) => {
          const s = drawn.reduce((sum, c) => sum + c.count, 0);
          // Every class is in the window while s <= W; after it, the window's classes hold at least W items.
          const classes = drawn.map((c, i) => ({ ...c, window: s <= 3 || i === 0 || c.window }));
          if (classes.filter((c) => c.window).reduce((sum, c) => sum + c.count, 0) < Math.min(s, 3)) return;
          const groups: ClassGroup[] = classes.map((c) => ({ ...c, size: 1 }));
          if (classes.length < 8) groups.push({ count: 0, size: 8 - classes.length, built: false, window: false });
          const law = predictive(groups, s, recipe);
          expect(groups.reduce((sum, g, i) => sum + g.size * (law.perClass[i] as number), 0)).toBeCloseTo(1, 12);
          expect(table.excluded(classes)).toBeCloseTo(law.excluded, 12);
        },
      ),
      { numRuns: 300, seed: 11 },
    );
  });
});

describe('dropping the window marks', () => {
  const setting = { horizon: 16, budget: 3, charge: 0, classCount: 8, hotCount: 3, hotMass: 0.85, window: 3 };

  it('right after the window costs much; from a later cut, little', () => {
    const exact = new OptimalTable(setting, { cut: Infinity });
    const best = exact.value([]);
    const valueWithCut = (cut: number) => {
      const table = new OptimalTable(setting, { cut });
      return exact.policyValue((classes, arriving) => table.choose(classes, arriving).commit);
    };
    expect(exact.policyValue((classes, arriving) => exact.choose(classes, arriving).commit)).toBeCloseTo(best, 12);
    const commitAt2 = exact.policyValue((classes, arriving) => arriving >= 0);
    // Exact 10.725 items per stream, commit-at-2 9.792; forgetting the window at once, 9.756.
    expect(valueWithCut(3)).toBeLessThan(commitAt2);
    expect(commitAt2).toBeLessThan(best - 0.9);
    expect(best - valueWithCut(10)).toBeLessThan(5e-3);
    expect(best - valueWithCut(12)).toBeLessThan(1e-4);
    expect(best - valueWithCut(12)).toBeGreaterThanOrEqual(-1e-12);
    expect(new OptimalTable(setting, { cut: 16 }).value([])).toBe(best);
  });
});

describe('the twin table (no rejection)', () => {
  it('is the exact table with W = 0 and solves each state once, counted beforehand', () => {
    const small = { T: 6, N: 3, H: 1, m: 0.85, W: 0, B: 2, K: 0.5 };
    const { prefix } = generatorLaw(small);
    const twin = new TwinTable(settingOf(small));
    expect(twin.value([], [])).toBeCloseTo(bruteValue(small, prefix, [], new Set()), 12);
    const big = new TwinTable({ horizon: 24, budget: 3, charge: 0, classCount: 8, hotCount: 3, hotMass: 0.85, window: 3 });
    big.value([], []);
    expect(big.size).toBe(big.stateCount());
    expect(big.value([3, 1], [2])).toBe(big.value([1, 3], [2]));
  });

  it('stops building once no build can repay its charge', () => {
    const setting = { horizon: 60, budget: 3, charge: 20, classCount: 8, hotCount: 3, hotMass: 0.85, window: 3 };
    // 1 + (0.85 / 3) * 59 = 17.7 < 20: never build, from the start.
    expect(new OptimalTable(setting).value([])).toBe(0);
    expect(new TwinTable(setting).stateCount()).toBe(0);
    const k10 = new TwinTable({ ...setting, charge: 10 });
    expect(k10.neverBuildFrom).toBe(28);
  });
});

describe('settings and states it refuses', () => {
  const base = { horizon: 10, budget: 2, charge: 0, classCount: 4, hotCount: 2, hotMass: 0.8, window: 3 };
  it.each([
    [{ hotCount: 4 }, /hot count/],
    [{ hotMass: 1 }, /hot mass/],
    [{ window: -1 }, /trap window/],
    [{ horizon: 0 }, /T must be/],
    [{ charge: -1 }, /K must be/],
  ])('%o', (change, message) => {
    expect(() => new OptimalTable({ ...base, ...change })).toThrow(message);
  });

  it('checks the window marks against the draws', () => {
    const table = new OptimalTable(base);
    expect(() => table.value([{ count: 2, built: false, window: false }])).toThrow(InputError);
    expect(() =>
      table.value([
        { count: 2, built: false, window: true },
        { count: 2, built: false, window: false },
      ]),
    ).toThrow(/window marks/);
    expect(() => table.value([{ count: 11, built: false, window: true }])).toThrow(/T = 10/);
    expect(
      table.value([
        { count: 3, built: false, window: true },
        { count: 1, built: false, window: false },
      ]),
    ).toBeGreaterThan(0);
  });
});

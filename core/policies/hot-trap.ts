import { InputError } from '../errors.js';

/*
 * The benchmark's own generator as an agent who knows its recipe sees it
 * (paper §3.2, core/stream/class-sequence.ts): N classes, H of them hot
 * sharing the hot mass m equally (rate h = m / H each), the other N - H traps
 * sharing 1 - m (rate tau each); which classes are hot is unknown, every
 * assignment of the H hot roles equally likely. T i.i.d. draws, the whole
 * sequence redrawn until a trap occurs among the first W positions (W, the
 * trap window, is the stream config's `budget`).
 *
 * Posterior over the hot set S after a history with counts c_i: every draw of
 * class i contributes r_S(i) = tau * rho^[i in S] (rho = h / tau), so
 *
 *   P(history, E | S) = tau^s * prod_{i in S} rho^{c_i} * P(E | history, S)
 *
 * where E is the event "a trap among the first W draws". Given S, E depends
 * only on the window: with F the classes seen in the first min(s, W)
 * positions, P(E | history, S) = 1 if some class of F is a trap under S, and
 * otherwise 1 - m^(W - s) (the remaining window positions, each hot with
 * probability m whatever S is; 0 once s >= W). P(E | S) = 1 - m^W is the same
 * for every S, so the conditioning leaves the prior over S uniform. Hence
 *
 *   Z(history) = sum_S prod_{i in S} w_i * (1 - [F subset of S] m^(max(W - s, 0))),   w_i = rho^{c_i}
 *
 * and the predictive is a ratio: P(next = i | history, E) = tau Z(history + i) / Z(history).
 * The same ratio gives the conditional draw law given S that the rejection
 * sampling induces: a draw in the window, with no trap yet among F under S,
 * is a trap with weight 1 / (1 - m^(W-s)) and hot with weight
 * (1 - m^(W-s-1)) / (1 - m^(W-s)); after the window it is r_S. But the
 * posterior keeps the window's evidence for ever: once s >= W, every S that
 * makes all of F hot is excluded (e.g. a window of one class seen three
 * times makes that class a trap with certainty). So the state carries which
 * classes were seen in the window, not just a flag while t <= W.
 *
 * Sums over S with classes grouped by equal counts: prod_g (1 + w_g x)^{n_g}
 * truncated at degree H, its x^H coefficient being sum_S prod_{i in S} w_i.
 * Weights are scaled by rho^{-c*} (c* the H-th largest count, or smallest if
 * rho < 1), which every S shares, so the sums stay within double range.
 */

export interface HotTrapRecipe {
  /** N. */
  readonly classCount: number;
  /** H, the number of hot classes. */
  readonly hotCount: number;
  /** m, the probability mass the hot classes share. */
  readonly hotMass: number;
  /** W, the trap window: the sequence holds a trap among its first W positions (0: no conditioning). */
  readonly window: number;
}

export interface HotTrapRates {
  readonly hot: number;
  readonly trap: number;
  /** hot / trap. */
  readonly rho: number;
  /** The largest rate a class can have. */
  readonly max: number;
}

export function hotTrapRates({ classCount: N, hotCount: H, hotMass: m }: HotTrapRecipe): HotTrapRates {
  const hot = m / H;
  const trap = (1 - m) / (N - H);
  return { hot, trap, rho: hot / trap, max: Math.max(hot, trap) };
}

export function validateRecipe({ classCount: N, hotCount: H, hotMass: m, window: W }: HotTrapRecipe): void {
  if (!Number.isInteger(N) || N < 2) throw new InputError(`optimal: N must be an integer of at least 2, got ${N}`);
  if (!Number.isInteger(H) || H < 1 || H >= N)
    throw new InputError(`optimal: the hot count must be an integer in 1..N-1 (N = ${N}), got ${H}`);
  if (!(m > 0 && m < 1)) throw new InputError(`optimal: the hot mass must lie strictly between 0 and 1, got ${m}`);
  if (!Number.isInteger(W) || W < 0) throw new InputError(`optimal: the trap window must be a non-negative integer, got ${W}`);
}

/** One group of exchangeable classes: `size` classes with the same count, built or not, in the window or not. */
export interface ClassGroup {
  readonly count: number;
  readonly size: number;
  readonly built: boolean;
  /** Seen in the first W positions (every seen class while s <= W). */
  readonly window: boolean;
}

/** The predictive and posterior summaries of a belief state. */
export interface Predictive {
  /** Per-class probability that the next draw is a class of group g (group order as given; unseen classes are a group of count 0). */
  readonly perClass: Float64Array;
  /** Probability that the next draw is a built class. */
  readonly builtMass: number;
  /**
   * Once s >= W: the posterior mass, under the sequence law WITHOUT the
   * rejection, of the hot sets the window excludes (all of F hot); 0 when
   * the window cannot be all hot (|F| > H).
   */
  readonly excluded: number;
}

/** Multiplies the truncated polynomial p (degree <= H) by (1 + w x), in place. */
function timesLinear(p: Float64Array, w: number, H: number): void {
  for (let k = H; k >= 1; k--) p[k] = (p[k] as number) + w * (p[k - 1] as number);
}

/** Scratch polynomials, reused by every call (the callers are synchronous). */
class Scratch {
  readonly f: Float64Array;
  readonly n: Float64Array;
  constructor(readonly H: number) {
    this.f = new Float64Array(H + 1);
    this.n = new Float64Array(H + 1);
  }
}

const scratches = new Map<number, Scratch>();
function scratchFor(H: number): Scratch {
  let s = scratches.get(H);
  if (!s) scratches.set(H, (s = new Scratch(H)));
  return s;
}

/**
 * Z (see above) for the groups with one class of group `boost` (or none: -1)
 * counted once more, at draw count s, all weights scaled by rho^{-cStar}.
 * `boostJoinsWindow`: the boosted class is an unseen one drawn inside the
 * window, so it moves to F. Returns Z and, for the unconditioned law, the
 * excluded sum e_|F|(F) e_{H-|F|}(not F) and the full sum e_H.
 */
function zOf(
  groups: readonly ClassGroup[],
  boost: number,
  boostJoinsWindow: boolean,
  s: number,
  recipe: HotTrapRecipe,
  rho: number,
  cStar: number,
): { z: number; excludedSum: number; all: number } {
  const H = recipe.hotCount;
  const { f, n } = scratchFor(H);
  f.fill(0);
  n.fill(0);
  f[0] = 1;
  n[0] = 1;
  let omega = 0;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g] as ClassGroup;
    const w = rho ** (group.count - cStar);
    let size = group.size;
    if (g === boost) {
      size -= 1;
      const inWindow = group.window || boostJoinsWindow;
      timesLinear(inWindow ? f : n, rho * w, H);
      if (inWindow) omega++;
    }
    const target = group.window ? f : n;
    for (let i = 0; i < size; i++) timesLinear(target, w, H);
    if (group.window) omega += size;
  }
  let all = 0;
  for (let j = 0; j <= H; j++) all += (f[j] as number) * (n[H - j] as number);
  // No window (W = 0), or one that cannot be all hot: nothing is excluded.
  if (recipe.window === 0 || omega > H) return { z: all, excludedSum: 0, all };
  const excludedSum = (f[omega] as number) * (n[H - omega] as number);
  let z = 0;
  for (let j = 0; j < omega; j++) z += (f[j] as number) * (n[H - j] as number);
  const windowLeft = Math.max(recipe.window - s, 0);
  // 1 - m^k, accurate for small m^k and for m^k near 1.
  const notAllHot = windowLeft === 0 ? 0 : -Math.expm1(windowLeft * Math.log(recipe.hotMass));
  z += notAllHot * excludedSum;
  return { z, excludedSum, all };
}

/** The scale every hot set shares: the H-th largest count (smallest if rho < 1), unseen classes counting 0. */
function scaleOf(groups: readonly ClassGroup[], H: number, rho: number): number {
  const counts: number[] = [];
  for (const g of groups) for (let i = 0; i < g.size; i++) counts.push(g.count);
  counts.sort((a, b) => (rho >= 1 ? b - a : a - b));
  return counts[Math.min(H, counts.length) - 1] ?? 0;
}

/**
 * The next draw's law given a history summarised by its groups (every class,
 * unseen ones included, in exactly one group) and s draws so far. The
 * reference form: the tables (optimal-dp.ts, optimal-twin.ts) compute the
 * same sums in place, and the tests hold them to this and to brute force.
 */
export function predictive(groups: readonly ClassGroup[], s: number, recipe: HotTrapRecipe): Predictive {
  const { trap, rho } = hotTrapRates(recipe);
  const cStar = scaleOf(groups, recipe.hotCount, rho);
  const parent = zOf(groups, -1, false, s, recipe, rho, cStar);
  if (!(parent.z > 0) || !Number.isFinite(parent.z)) {
    throw new InputError(`optimal: the posterior is out of floating-point range at s = ${s} (counts too far apart for these rates)`);
  }
  const perClass = new Float64Array(groups.length);
  let builtMass = 0;
  const inWindow = s < recipe.window;
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g] as ClassGroup;
    if (group.size === 0) continue;
    const child = zOf(groups, g, inWindow && group.count === 0, s + 1, recipe, rho, cStar);
    const p = (trap * child.z) / parent.z;
    perClass[g] = p;
    if (group.built) builtMass += p * group.size;
  }
  const excluded = s >= recipe.window && parent.all > 0 ? parent.excludedSum / parent.all : 0;
  return { perClass, builtMass, excluded };
}

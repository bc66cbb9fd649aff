import { InputError } from '../errors.js';
import { hotTrapRates, validateRecipe, type HotTrapRecipe } from './hot-trap.js';
import { neverBuildFrom, twinTable, type TwinTable } from './optimal-twin.js';

/*
 * The Bayes-optimal online policy under the benchmark's own generator
 * (hot-trap.ts): the agent knows the recipe (N, H, the hot mass, the trap
 * window W) and T, B, K, and sees the class history; it does not know which
 * classes are hot. Value = expected future net: +1 per item of a built class
 * (the item at which it is built included), -K per build, 0 for a pass. It
 * builds only when building is strictly better (ties pass).
 *
 * State (before an arrival), canonical under exchangeability: the multiset of
 * the seen classes, each as (count, built, seen in the window), the unseen
 * ones being the rest; s = the total count. Built classes keep their own
 * counts (optimal-twin.ts), and the window mark stays for ever: once s >= W,
 * the window's evidence is that not every class of F (the classes of the
 * first W draws) is hot, which removes those hot sets from the posterior at
 * every later time, not only inside the window (hot-trap.ts). Forgetting it
 * right after the window costs a lot: at T = 24, B = 3 the policy that does
 * so nets 14.23 per stream where the exact one nets 16.37 (and commit-at-2
 * 15.85).
 *
 * The marks multiply the states: at T = 60, B = 3 about 5.9e8 with budget
 * left, against 1.3e7 without them. So the table keeps the marks up to draw
 * count `cut` and drops them from there on: a state at s >= cut takes the
 * value of its unmarked twin (optimal-twin.ts: the same counts under the
 * posterior without the window's exclusion), exactly solved. With cut >= T
 * the table is exact (checked against brute force over every sequence). The
 * twin is within delta (T - s + K b) / (1 - delta) of the marked value, delta
 * being the posterior mass the window excludes: tiny on most paths by
 * mid-stream, not on all. What dropping the marks costs the policy, exactly
 * evaluated where the exact table fits (T <= 28) and by paired simulation at
 * T = 60, is in bench/optimal-bench.ts.
 */

export interface OptimalSetting extends HotTrapRecipe {
  /** T. */
  readonly horizon: number;
  /** B. */
  readonly budget: number;
  /** K. */
  readonly charge: number;
}

/** A seen class as the state holds it. */
export interface SeenClass {
  readonly count: number;
  readonly built: boolean;
  /** First seen within the first W draws. */
  readonly window: boolean;
}

export interface BuildChoice {
  /** Expected future net when passing the arriving item. */
  readonly pass: number;
  /** Expected future net when building its class now (1 - K included); -Infinity without budget. */
  readonly build: number;
  /** Build only when strictly better (beyond the tie tolerance). */
  readonly commit: boolean;
}

export interface TableOptions {
  /** Draw count from which the window marks are dropped (Infinity: exact); default DEFAULT_CUT. */
  readonly cut?: number;
  /** Largest twin table, in states (8 bytes each). */
  readonly maxTwinStates?: number;
}

/** Values this close (relative) are a tie: summation order must not flip a decision. */
export const TIE = 1e-9;

export const MAX_TWIN_STATES = 64_000_000;

/**
 * The default cut, in draws: exact for T <= 32. At T = 60, B = 3, K = 0 it
 * keeps 5.9e6 marked states (37 s with the twin, 229 MiB); on 40,000
 * simulated streams the decisions of cut 26 differ from it on 1.3% of
 * streams, for 0.010 +- 0.002 items per stream, and those of cut 20 for
 * 0.052 +- 0.005 (bench/optimal-bench.ts), so what cut 32 itself leaves is
 * likely a few thousandths. With K >= 10 at T = 60 no build can pay from
 * draw 28 on and the table is exact.
 */
export const DEFAULT_CUT = 32;

const BUILT = 2;
const WINDOW = 1;
const codeOf = (count: number, built: boolean, window: boolean) => count * 4 + (built ? BUILT : 0) + (window ? WINDOW : 0);

/** Open addressing from a 64-bit key (two 32-bit halves) to a number. */
class PackedValues {
  private hi = new Uint32Array(1 << 16);
  private lo = new Uint32Array(1 << 16);
  private values = new Float64Array(1 << 16);
  private mask = (1 << 16) - 1;
  size = 0;

  get bytes(): number {
    return this.values.length * 16;
  }

  private slot(hi: number, lo: number): number {
    let i = (Math.imul(lo ^ Math.imul(hi, 0x85ebca77), 0x9e3779b1) >>> 0) & this.mask;
    while (this.lo[i] !== 0 && (this.lo[i] !== lo || this.hi[i] !== hi)) i = (i + 1) & this.mask;
    return i;
  }

  /** NaN when absent. `lo` is never 0 (the first code is). */
  get(hi: number, lo: number): number {
    const i = this.slot(hi, lo);
    return this.lo[i] === 0 ? NaN : (this.values[i] as number);
  }

  set(hi: number, lo: number, value: number): void {
    if ((this.size + 1) * 4 > this.values.length * 3) this.grow();
    const i = this.slot(hi, lo);
    if (this.lo[i] === 0) this.size++;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.values[i] = value;
  }

  private grow(): void {
    const [hi, lo, values] = [this.hi, this.lo, this.values];
    const capacity = values.length * 2;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.values = new Float64Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < values.length; i++) {
      if (lo[i] === 0) continue;
      const j = this.slot(hi[i] as number, lo[i] as number);
      this.hi[j] = hi[i] as number;
      this.lo[j] = lo[i] as number;
      this.values[j] = values[i] as number;
    }
  }
}

export class OptimalTable {
  readonly setting: OptimalSetting;
  /** Draw count from which the window marks are dropped. */
  readonly cut: number;
  private readonly T: number;
  private readonly B: number;
  private readonly K: number;
  private readonly N: number;
  private readonly H: number;
  private readonly W: number;
  private readonly hot: number;
  private readonly trap: number;
  private readonly rho: number;
  private readonly neverBuildFrom: number;
  private readonly maxTwinStates: number;
  private twinTable: TwinTable | undefined;
  private readonly packed: PackedValues | undefined;
  private readonly keyed: Map<string, number> | undefined;
  private readonly powers: Float64Array;
  /** 1 - m^(W - s) for s < W, else 0. */
  private readonly notAllHot: Float64Array;
  // Per draw count s: the state's codes (descending) and its groups with their predictive.
  private readonly codes: Int32Array[];
  private readonly groupCode: Int32Array[];
  private readonly groupSize: Int32Array[];
  /** Index of the group's first class in the codes; -1 for the unseen. */
  private readonly groupAt: Int32Array[];
  private readonly groupP: Float64Array[];
  private readonly poly: Float64Array;
  private readonly twinBuilt: Int32Array;
  private readonly sideF: Int32Array;
  private readonly sideN: Int32Array;
  private readonly weight: Float64Array;
  /** The group sizes of the predict in progress. */
  private currentSize: Int32Array;
  private readonly twinUnbuilt: Int32Array;
  private lastBuiltMass = 0;
  private lastExcluded = 0;

  constructor(setting: OptimalSetting, options: TableOptions = {}) {
    validate(setting);
    this.setting = setting;
    const { horizon: T, budget: B, charge: K, classCount: N, hotCount: H } = setting;
    this.T = T;
    this.B = B;
    this.K = K;
    this.N = N;
    this.H = H;
    // The generator checks the window only within the sequence.
    this.W = Math.min(setting.window, T);
    this.cut = Math.max(this.W, Math.min(options.cut ?? DEFAULT_CUT, T));
    const rates = hotTrapRates(setting);
    this.hot = rates.hot;
    this.trap = rates.trap;
    this.rho = rates.rho;
    this.neverBuildFrom = neverBuildFrom(T, K, rates.max);
    this.maxTwinStates = options.maxTwinStates ?? MAX_TWIN_STATES;
    if (T * Math.abs(Math.log10(this.rho)) > 290) {
      throw new InputError(`optimal: T = ${T} with a hot/trap rate ratio of ${this.rho.toPrecision(3)} is out of floating-point range`);
    }
    if (N <= 8 && T <= 63) this.packed = new PackedValues();
    else this.keyed = new Map();
    this.powers = new Float64Array(2 * T + 4);
    for (let d = -T - 1; d <= T + 2; d++) this.powers[d + T + 1] = this.rho ** d;
    this.notAllHot = new Float64Array(T + 2);
    for (let s = 0; s <= T + 1; s++) this.notAllHot[s] = s < this.W ? -Math.expm1((this.W - s) * Math.log(setting.hotMass)) : 0;
    const level = <A>(make: () => A) => Array.from({ length: T + 2 }, make);
    this.codes = level(() => new Int32Array(N + 1));
    this.groupCode = level(() => new Int32Array(N + 1));
    this.groupSize = level(() => new Int32Array(N + 1));
    this.groupAt = level(() => new Int32Array(N + 1));
    this.groupP = level(() => new Float64Array(N + 1));
    // Scratch polynomials (degree <= H): prefix and suffix products, within and outside the window.
    this.poly = new Float64Array(4 * (N + 2) * (H + 1) + 2 * (H + 1));
    this.sideF = new Int32Array(N + 1);
    this.sideN = new Int32Array(N + 1);
    this.weight = new Float64Array(N + 1);
    this.currentSize = this.groupSize[0] as Int32Array;
    this.twinBuilt = new Int32Array(N + 1);
    this.twinUnbuilt = new Int32Array(N + 1);
  }

  /** The table without the window (solved on first use). */
  get twin(): TwinTable {
    this.twinTable ??= twinTable(this.setting, this.maxTwinStates);
    return this.twinTable;
  }

  /** Marked states solved (s < cut). */
  get size(): number {
    return this.packed ? this.packed.size : (this.keyed as Map<string, number>).size;
  }

  /** Bytes of the marked states' table and of the twin's (0 before first use). */
  get bytes(): number {
    return (this.packed?.bytes ?? this.size * 64) + (this.twinTable?.bytes ?? 0);
  }

  /** V(state): the seen classes, any order. */
  value(classes: readonly SeenClass[]): number {
    const s = this.load(classes, 0);
    return this.solve(s, classes.length);
  }

  /** The decision on an arriving item: `arriving` indexes `classes`, or is -1 for an unseen class. */
  choose(classes: readonly SeenClass[], arriving: number): BuildChoice {
    const { B, K, T, N } = this;
    const s = this.load(classes, 0);
    if (s >= T) throw new InputError(`optimal: no draw is left after ${s} of T = ${T}`);
    const arrivingClass = arriving >= 0 ? classes[arriving] : undefined;
    if (arriving >= 0 && !arrivingClass) throw new InputError(`optimal: no class ${arriving} in the state`);
    if (arriving < 0 && classes.length >= N) throw new InputError('optimal: no unseen class is left');
    if (arrivingClass?.built) throw new InputError('optimal: the arriving class is built already');
    const window = arrivingClass ? arrivingClass.window : s < this.W;
    const count = arrivingClass ? arrivingClass.count : 0;
    const from = arrivingClass ? codeOf(count, false, window) : -1;
    const L = classes.length;
    const level = this.codes[s] as Int32Array;
    const at = from < 0 ? -1 : level.subarray(0, L).indexOf(from);
    let length = this.childInto(s + 1, L, at, codeOf(count + 1, false, window));
    const pass = this.solve(s + 1, length);
    const built = classes.filter((c) => c.built).length;
    if (built >= B) return { pass, build: -Infinity, commit: false };
    length = this.childInto(s + 1, L, at, codeOf(count + 1, true, window));
    const build = 1 - K + this.solve(s + 1, length);
    return { pass, build, commit: build - pass > TIE * Math.max(1, Math.abs(pass)) };
  }

  /** Checks a state and writes its codes into the buffer of draw count s + offset; returns s. */
  private load(classes: readonly SeenClass[], offset: number): number {
    const { N, T, W } = this;
    if (classes.length > N) throw new InputError(`optimal: ${classes.length} classes seen but N = ${N}`);
    let s = 0;
    let windowItems = 0;
    let windowClasses = 0;
    for (const c of classes) {
      if (!Number.isInteger(c.count) || c.count < 1) throw new InputError(`optimal: a seen class has count ${c.count}`);
      s += c.count;
      if (c.window) {
        windowItems += c.count;
        windowClasses++;
      }
    }
    if (s > T) throw new InputError(`optimal: ${s} draws seen but T = ${T}`);
    if (W === 0 ? windowClasses > 0 : s <= W ? windowClasses !== classes.length : windowClasses === 0 || windowItems < W) {
      throw new InputError(`optimal: the window marks do not fit ${s} draws with a trap window of ${W}`);
    }
    const sorted = classes.map((c) => codeOf(c.count, c.built, c.window)).sort((a, b) => b - a);
    const level = this.codes[s + offset] as Int32Array;
    for (let i = 0; i < sorted.length; i++) level[i] = sorted[i] as number;
    return s;
  }

  /**
   * Writes into the buffer of draw count s the codes of level s - 1 with the
   * class at `at` (-1: a new one) replaced by `code`, kept descending; returns the length.
   */
  private childInto(s: number, L: number, at: number, code: number): number {
    const parent = this.codes[s - 1] as Int32Array;
    const child = this.codes[s] as Int32Array;
    let j = 0;
    let placed = false;
    for (let i = 0; i < L; i++) {
      if (i === at) continue;
      const c = parent[i] as number;
      if (!placed && code >= c) {
        child[j++] = code;
        placed = true;
      }
      child[j++] = c;
    }
    if (!placed) child[j++] = code;
    return j;
  }

  private twinValue(s: number, L: number): number {
    const codes = this.codes[s] as Int32Array;
    let [b, k] = [0, 0];
    for (let i = 0; i < L; i++) {
      const c = codes[i] as number;
      if (c & BUILT) this.twinBuilt[b++] = c >> 2;
      else this.twinUnbuilt[k++] = c >> 2;
    }
    return this.twin.valueSorted(this.twinBuilt, b, this.twinUnbuilt, k);
  }

  /**
   * Z (hot-trap.ts) from the truncated window / outside polynomials at f and
   * n in `poly`, with omega window classes, for a history of s draws.
   */
  private z(f: number, n: number, omega: number, s: number): number {
    const { H, poly } = this;
    let all = 0;
    if (this.W === 0 || omega > H) {
      for (let j = 0; j <= H; j++) all += (poly[f + j] as number) * (poly[n + H - j] as number);
      return all;
    }
    for (let j = 0; j < omega; j++) all += (poly[f + j] as number) * (poly[n + H - j] as number);
    return all + (this.notAllHot[s] as number) * (poly[f + omega] as number) * (poly[n + H - omega] as number);
  }

  /** Multiplies poly[at..] (degree H) by (1 + w x), `times` times. */
  private times(at: number, w: number, times: number): void {
    const { H, poly } = this;
    for (let r = 0; r < times; r++) for (let d = H; d >= 1; d--) poly[at + d] = (poly[at + d] as number) + w * (poly[at + d - 1] as number);
  }

  /** poly[to..] = poly[a..] * poly[b..], truncated at degree H. */
  private product(to: number, a: number, b: number): void {
    const { H, poly } = this;
    for (let d = 0; d <= H; d++) {
      let sum = 0;
      for (let e = 0; e <= d; e++) sum += (poly[a + e] as number) * (poly[b + d - e] as number);
      poly[to + d] = sum;
    }
  }

  /** Prefix products pre[i] and suffix products suf[i] of the factors of the listed groups (level buffers of the current predict). */
  private sideProducts(list: Int32Array, count: number, pre: number, suf: number): void {
    const { H, poly } = this;
    const width = H + 1;
    poly.fill(0, pre, pre + width);
    poly[pre] = 1;
    for (let i = 0; i < count; i++) {
      const g = list[i] as number;
      this.copy(pre + (i + 1) * width, pre + i * width);
      this.times(pre + (i + 1) * width, this.weight[g] as number, this.currentSize[g] as number);
    }
    poly.fill(0, suf + count * width, suf + count * width + width);
    poly[suf + count * width] = 1;
    for (let i = count - 1; i >= 0; i--) {
      const g = list[i] as number;
      this.copy(suf + i * width, suf + (i + 1) * width);
      this.times(suf + i * width, this.weight[g] as number, this.currentSize[g] as number);
    }
  }

  private copy(to: number, from: number): void {
    for (let d = 0; d <= this.H; d++) this.poly[to + d] = this.poly[from + d] as number;
  }

  /**
   * The predictive at draw count s for the codes in the level-s buffer:
   * fills the level's groups (the unseen last) and their per-class
   * probabilities; sets lastBuiltMass and lastExcluded; returns the groups' number.
   */
  private predict(s: number, L: number): number {
    const { N, H, T, W, powers, poly, rho } = this;
    const codes = this.codes[s] as Int32Array;
    const gCode = this.groupCode[s] as Int32Array;
    const gSize = this.groupSize[s] as Int32Array;
    const gAt = this.groupAt[s] as Int32Array;
    const gP = this.groupP[s] as Float64Array;
    let G = 0;
    for (let i = 0; i < L; ) {
      const c = codes[i] as number;
      let j = i;
      while (j + 1 < L && codes[j + 1] === c) j++;
      gCode[G] = c;
      gSize[G] = j - i + 1;
      gAt[G++] = i;
      i = j + 1;
    }
    if (L < N) {
      gCode[G] = 0;
      gSize[G] = N - L;
      gAt[G++] = -1;
    }
    this.currentSize = gSize;
    let cStar: number;
    if (rho >= 1) cStar = L >= H ? (codes[H - 1] as number) >> 2 : 0;
    else {
      const counts: number[] = [];
      for (let i = 0; i < L; i++) counts.push((codes[i] as number) >> 2);
      while (counts.length < N) counts.push(0);
      counts.sort((a, b) => a - b);
      cStar = counts[H - 1] as number;
    }
    const width = H + 1;
    // Each side (the window's classes F, the others with the unseen) gets prefix and suffix
    // products of its groups' factors (1 + w x)^size; then per group, the product of every
    // class of its side but one of the group, and that one with weight rho w.
    const block = (N + 2) * width;
    const [preF, sufF, preN, sufN] = [0, block, 2 * block, 3 * block];
    const loo = 4 * block;
    const child = loo + width;
    const sideF = this.sideF;
    const sideN = this.sideN;
    const weight = this.weight;
    let [nf, nn, omega] = [0, 0, 0];
    for (let g = 0; g < G; g++) {
      const c = gCode[g] as number;
      weight[g] = powers[(c >> 2) - cStar + T + 1] as number;
      if (c & WINDOW) {
        sideF[nf++] = g;
        omega += gSize[g] as number;
      } else sideN[nn++] = g;
    }
    this.sideProducts(sideF, nf, preF, sufF);
    this.sideProducts(sideN, nn, preN, sufN);
    const fAll = preF + nf * width;
    const nAll = preN + nn * width;
    const z = this.z(fAll, nAll, omega, s);
    const joinsWindow = s < W;
    let builtMass = 0;
    for (let side = 0; side < 2; side++) {
      const list = side === 0 ? sideF : sideN;
      const count = side === 0 ? nf : nn;
      const pre = side === 0 ? preF : preN;
      const suf = side === 0 ? sufF : sufN;
      for (let i = 0; i < count; i++) {
        const g = list[i] as number;
        const c = gCode[g] as number;
        const w = weight[g] as number;
        this.product(loo, pre + i * width, suf + (i + 1) * width);
        this.times(loo, w, (gSize[g] as number) - 1);
        const rw = rho * w;
        let zChild: number;
        if (side === 1 && c === 0 && joinsWindow) {
          // An unseen class drawn inside the window joins F.
          poly[child] = poly[fAll] as number;
          for (let d = 1; d <= H; d++) poly[child + d] = (poly[fAll + d] as number) + rw * (poly[fAll + d - 1] as number);
          zChild = this.z(child, loo, omega + 1, s + 1);
        } else {
          poly[child] = poly[loo] as number;
          for (let d = 1; d <= H; d++) poly[child + d] = (poly[loo + d] as number) + rw * (poly[loo + d - 1] as number);
          zChild = side === 0 ? this.z(child, nAll, omega, s + 1) : this.z(fAll, child, omega, s + 1);
        }
        const p = (this.trap * zChild) / z;
        gP[g] = p;
        if (c & BUILT) builtMass += p * (gSize[g] as number);
      }
    }
    this.lastBuiltMass = builtMass;
    if (s >= W && W > 0 && omega <= H) {
      let all = 0;
      for (let j = 0; j <= H; j++) all += (poly[fAll + j] as number) * (poly[nAll + H - j] as number);
      this.lastExcluded = ((poly[fAll + omega] as number) * (poly[nAll + H - omega] as number)) / all;
    } else this.lastExcluded = 0;
    return G;
  }

  /**
   * P(next draw is a built class) at s >= W, for the codes in the level-s
   * buffer: tau b + (hot - tau) E[hot classes among the built], from
   * polynomials that also carry the built members' number (d_k = sum over
   * k-sets of |S and built| prod w), summed over the hot sets the window allows.
   */
  private builtMass(s: number, L: number): number {
    const { H, N, T, W, powers, rho, poly } = this;
    const codes = this.codes[s] as Int32Array;
    let cStar: number;
    if (rho >= 1) cStar = L >= H ? (codes[H - 1] as number) >> 2 : 0;
    else {
      const counts: number[] = [];
      for (let i = 0; i < L; i++) counts.push((codes[i] as number) >> 2);
      while (counts.length < N) counts.push(0);
      counts.sort((a, b) => a - b);
      cStar = counts[H - 1] as number;
    }
    const width = H + 1;
    const [f, df, n, dn] = [0, width, 2 * width, 3 * width];
    poly.fill(0, 0, 4 * width);
    poly[f] = 1;
    poly[n] = 1;
    let omega = 0;
    let built = 0;
    for (let i = 0; i < L; i++) {
      const c = codes[i] as number;
      const w = powers[(c >> 2) - cStar + T + 1] as number;
      const inF = (c & WINDOW) !== 0;
      const isBuilt = (c & BUILT) !== 0;
      if (inF) omega++;
      if (isBuilt) built++;
      const e = inF ? f : n;
      const d = inF ? df : dn;
      for (let k = H; k >= 1; k--) {
        poly[d + k] = (poly[d + k] as number) + w * ((poly[d + k - 1] as number) + (isBuilt ? (poly[e + k - 1] as number) : 0));
        poly[e + k] = (poly[e + k] as number) + w * (poly[e + k - 1] as number);
      }
    }
    if (built === 0) return 0;
    const w0 = powers[-cStar + T + 1] as number;
    for (let i = L; i < N; i++) {
      for (let k = H; k >= 1; k--) {
        poly[dn + k] = (poly[dn + k] as number) + w0 * (poly[dn + k - 1] as number);
        poly[n + k] = (poly[n + k] as number) + w0 * (poly[n + k - 1] as number);
      }
    }
    const top = W === 0 || omega > H ? H : omega - 1;
    let z = 0;
    let hotBuilt = 0;
    for (let j = 0; j <= top; j++) {
      z += (poly[f + j] as number) * (poly[n + H - j] as number);
      hotBuilt += (poly[df + j] as number) * (poly[n + H - j] as number) + (poly[f + j] as number) * (poly[dn + H - j] as number);
    }
    return this.trap * built + ((this.hot - this.trap) * hotBuilt) / z;
  }

  /** V at draw count s of the codes in the level-s buffer (length L). */
  private solve(s: number, L: number): number {
    const { T, B, K, N, W } = this;
    if (s >= T) return 0;
    const codes = this.codes[s] as Int32Array;
    let built = 0;
    for (let i = 0; i < L; i++) if ((codes[i] as number) & BUILT) built++;
    const left = Math.min(B, N) - built;
    if (s >= W) {
      if (left <= 0 || s >= this.neverBuildFrom) return (T - s) * this.builtMass(s, L);
      if (s >= this.cut) return this.twinValue(s, L);
    }
    let hi = 0;
    let lo = 0;
    let key = '';
    if (this.packed) {
      for (let i = 0; i < 4 && i < L; i++) lo |= (codes[i] as number) << (8 * i);
      for (let i = 4; i < L; i++) hi |= (codes[i] as number) << (8 * (i - 4));
      lo >>>= 0;
      hi >>>= 0;
      if (lo === 0) lo = 0xffffffff; // the empty history
      const known = this.packed.get(hi, lo);
      if (!Number.isNaN(known)) return known;
    } else {
      key = codes.subarray(0, L).join(',');
      const known = (this.keyed as Map<string, number>).get(key);
      if (known !== undefined) return known;
    }
    const G = this.predict(s, L);
    const gCode = this.groupCode[s] as Int32Array;
    const gSize = this.groupSize[s] as Int32Array;
    const gAt = this.groupAt[s] as Int32Array;
    const gP = this.groupP[s] as Float64Array;
    let v = 0;
    for (let g = 0; g < G; g++) {
      const c = gCode[g] as number;
      const p = (gSize[g] as number) * (gP[g] as number);
      if (p === 0) continue;
      const at = gAt[g] as number;
      const window = c === 0 ? s < W : (c & WINDOW) !== 0;
      const count = c >> 2;
      if (c & BUILT) {
        v += p * (1 + this.solve(s + 1, this.childInto(s + 1, L, at, c + 4)));
        continue;
      }
      const pass = this.solve(s + 1, this.childInto(s + 1, L, at, codeOf(count + 1, false, window)));
      if (left <= 0) {
        v += p * pass;
        continue;
      }
      const build = 1 - K + this.solve(s + 1, this.childInto(s + 1, L, at, codeOf(count + 1, true, window)));
      v += p * (build > pass ? build : pass);
    }
    if (this.packed) this.packed.set(hi, lo, v);
    else (this.keyed as Map<string, number>).set(key, v);
    return v;
  }

  /**
   * The expected net, under this table's law with the window marks kept to
   * the end, of the policy `decide` (true: build) from the empty history:
   * exact, for small settings (every marked state is visited).
   */
  policyValue(decide: (classes: SeenClass[], arriving: number) => boolean): number {
    const memo = new Map<string, number>();
    const { T, B, K, N, W } = this;
    const classesOf = (s: number, L: number): SeenClass[] =>
      Array.from((this.codes[s] as Int32Array).subarray(0, L), (c) => ({
        count: c >> 2,
        built: (c & BUILT) !== 0,
        window: (c & WINDOW) !== 0,
      }));
    const walk = (s: number, L: number): number => {
      if (s >= T) return 0;
      const codes = this.codes[s] as Int32Array;
      const key = codes.subarray(0, L).join(',');
      const known = memo.get(key);
      if (known !== undefined) return known;
      let built = 0;
      for (let i = 0; i < L; i++) if ((codes[i] as number) & BUILT) built++;
      const G = this.predict(s, L);
      const gCode = (this.groupCode[s] as Int32Array).slice(0, G);
      const gSize = (this.groupSize[s] as Int32Array).slice(0, G);
      const gAt = (this.groupAt[s] as Int32Array).slice(0, G);
      const gP = (this.groupP[s] as Float64Array).slice(0, G);
      let v = 0;
      for (let g = 0; g < G; g++) {
        const c = gCode[g] as number;
        const p = (gSize[g] as number) * (gP[g] as number);
        if (p === 0) continue;
        const at = gAt[g] as number;
        const window = c === 0 ? s < W : (c & WINDOW) !== 0;
        const count = c >> 2;
        if (c & BUILT) {
          v += p * (1 + walk(s + 1, this.childInto(s + 1, L, at, c + 4)));
          continue;
        }
        const commit = built < Math.min(B, N) && decide(classesOf(s, L), at < 0 ? -1 : at);
        v += p * (commit ? 1 - K : 0);
        v += p * walk(s + 1, this.childInto(s + 1, L, at, codeOf(count + 1, commit, window)));
      }
      memo.set(key, v);
      return v;
    };
    return walk(0, 0);
  }

  /** Posterior mass the window excludes at a state (for diagnostics and bounds). */
  excluded(classes: readonly SeenClass[]): number {
    const s = this.load(classes, 0);
    this.predict(s, classes.length);
    return this.lastExcluded;
  }
}

function validate(setting: OptimalSetting): void {
  validateRecipe(setting);
  const { horizon: T, budget: B, charge: K } = setting;
  if (!Number.isInteger(T) || T < 1) throw new InputError(`optimal: T must be a positive integer, got ${T}`);
  if (!Number.isInteger(B) || B < 0) throw new InputError(`optimal: B must be a non-negative integer, got ${B}`);
  if (!(K >= 0) || !Number.isFinite(K)) throw new InputError(`optimal: K must be finite and non-negative, got ${K}`);
}

/**
 * Tables are shared by every policy and decision with the same setting (a
 * policy agent is built anew for each call). The most recently used are kept
 * up to this many bytes.
 */
const BYTES_KEPT = 768 * 2 ** 20;
const tables = new Map<string, OptimalTable>();

export function optimalTable(setting: OptimalSetting, options: TableOptions = {}): OptimalTable {
  const { horizon, budget, charge, classCount, hotCount, hotMass, window } = setting;
  const key = `${horizon}|${budget}|${charge}|${classCount}|${hotCount}|${hotMass}|${window}|${options.cut ?? DEFAULT_CUT}`;
  let table = tables.get(key);
  if (table) tables.delete(key);
  else table = new OptimalTable({ horizon, budget, charge, classCount, hotCount, hotMass, window }, options);
  tables.set(key, table);
  let bytes = 0;
  for (const kept of tables.values()) bytes += kept.bytes;
  for (const [oldest, kept] of tables) {
    if (bytes <= BYTES_KEPT || kept === table) break;
    tables.delete(oldest);
    bytes -= kept.bytes;
  }
  return table;
}

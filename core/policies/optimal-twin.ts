import { InputError } from '../errors.js';
import { hotTrapRates, type HotTrapRecipe } from './hot-trap.js';
import { PartitionRank } from './partition-rank.js';

/*
 * The exact Bayes-optimal values under the hot/trap recipe WITHOUT the
 * early-trap rejection (hot-trap.ts with W = 0): dynamic programming over
 * belief states, solved lazily and tabled densely.
 *
 * State, canonical under exchangeability: the counts of the built classes (a
 * multiset, each count kept: with two roles and exactly H hot, a built
 * class's own count keeps informing how many hot classes are left among the
 * others, and its later draws do too, so built classes cannot be pooled into
 * a total as under the Dirichlet prior) and the counts of the seen unbuilt
 * classes (a multiset); the unseen classes are the rest. With no budget left,
 * or once no build can repay its charge (1 + r_max (T - s - 1) <= K: each
 * build's expected items are at most that), the value is the closed form
 * (T - s) P(next draw is a built class), the draws being i.i.d. given the
 * roles.
 *
 * This table is the "twin" of the generator's own DP (optimal-dp.ts): a
 * state of the conditioned law, whose posterior differs by excluding the hot
 * sets that make the whole window hot, is within delta (T - s + K b) / (1 - delta)
 * of its twin here, delta being the excluded posterior mass.
 */

export interface TwinSetting extends HotTrapRecipe {
  readonly horizon: number;
  readonly budget: number;
  readonly charge: number;
}

export class TwinTable {
  private readonly T: number;
  private readonly B: number;
  private readonly K: number;
  private readonly N: number;
  private readonly H: number;
  private readonly hot: number;
  private readonly trap: number;
  private readonly rho: number;
  /** Draw count from which no build can repay its charge. */
  readonly neverBuildFrom: number;
  private readonly partitions: PartitionRank;
  private readonly layers: (Float64Array | undefined)[];
  /** rho^(d) at index d + T + 1, d in [-T - 1, T + 1]. */
  private readonly powers: Float64Array;
  // Per draw count s: the state's parts and its groups with their predictive.
  private readonly builtParts: Int32Array[];
  private readonly unbuiltParts: Int32Array[];
  private readonly groupCount: Int32Array[];
  private readonly groupSize: Int32Array[];
  /** 0 built, 1 unbuilt, 2 unseen. */
  private readonly groupKind: Int8Array[];
  /** Index of the group's first part in its parts array. */
  private readonly groupAt: Int32Array[];
  private readonly groupP: Float64Array[];
  private readonly pre: Float64Array;
  private readonly suf: Float64Array;
  private readonly q: Float64Array;
  private readonly rankBuffer: Int32Array;
  private solved = 0;
  private cells = 0;

  constructor(
    readonly setting: TwinSetting,
    maxStates = Infinity,
  ) {
    const { horizon: T, budget: B, charge: K, classCount: N, hotCount: H } = setting;
    this.T = T;
    this.B = B;
    this.K = K;
    this.N = N;
    this.H = H;
    const rates = hotTrapRates(setting);
    this.hot = rates.hot;
    this.trap = rates.trap;
    this.rho = rates.rho;
    this.neverBuildFrom = neverBuildFrom(T, K, rates.max);
    if (T * Math.abs(Math.log10(this.rho)) > 290) {
      throw new InputError(`optimal: T = ${T} with a hot/trap rate ratio of ${this.rho.toPrecision(3)} is out of floating-point range`);
    }
    this.partitions = new PartitionRank(T + 1, Math.min(N, T + 1));
    const states = this.stateCount();
    if (states > maxStates) {
      throw new InputError(
        `optimal: the exact table for T=${T}, B=${B}, K=${K}, N=${N} has ${states.toExponential(2)} states (at most ${maxStates.toExponential(2)})`,
      );
    }
    this.layers = new Array<Float64Array | undefined>(Math.min(B, N) * (T + 1) * (T + 1));
    this.powers = new Float64Array(2 * T + 4);
    for (let d = -T - 1; d <= T + 2; d++) this.powers[d + T + 1] = this.rho ** d;
    const level = <A>(make: () => A) => Array.from({ length: T + 2 }, make);
    this.builtParts = level(() => new Int32Array(N + 1));
    this.unbuiltParts = level(() => new Int32Array(N + 1));
    this.groupCount = level(() => new Int32Array(N + 1));
    this.groupSize = level(() => new Int32Array(N + 1));
    this.groupKind = level(() => new Int8Array(N + 1));
    this.groupAt = level(() => new Int32Array(N + 1));
    this.groupP = level(() => new Float64Array(N + 1));
    this.pre = new Float64Array((N + 2) * (H + 1));
    this.suf = new Float64Array((N + 2) * (H + 1));
    this.q = new Float64Array(H + 1);
    this.rankBuffer = new Int32Array(N + 1);
  }

  /** States with budget left and s below the no-build point, each solved at most once. */
  stateCount(): number {
    const { T, B, N } = this;
    const end = Math.min(T, this.neverBuildFrom);
    let states = 0;
    for (let b = 0; b < Math.min(B, N); b++) {
      for (let a = b; a < end; a++) {
        const builtShapes = this.partitions.count(a - b, b, a - b);
        if (builtShapes === 0) continue;
        for (let n = 0; a + n < end; n++) states += builtShapes * this.partitions.count(n, N - b, n);
        if (b === 0) break;
      }
    }
    return states;
  }

  get size(): number {
    return this.solved;
  }

  get bytes(): number {
    return this.cells * Float64Array.BYTES_PER_ELEMENT;
  }

  /** The value of a state: the built classes' counts and the seen unbuilt classes' counts, any order. */
  value(built: readonly number[], unbuilt: readonly number[]): number {
    const b = [...built].sort((x, y) => y - x);
    const u = [...unbuilt].sort((x, y) => y - x);
    const a = b.reduce((sum, c) => sum + c, 0);
    const s = a + u.reduce((sum, c) => sum + c, 0);
    if (b.length + u.length > this.N || [...b, ...u].some((c) => !(c >= 1) || !Number.isInteger(c))) {
      throw new InputError(`optimal: counts [${b.join(', ')}] built and [${u.join(', ')}] unbuilt do not fit N = ${this.N}`);
    }
    if (s > this.T) throw new InputError(`optimal: ${s} draws seen but T = ${this.T}`);
    (this.builtParts[s] as Int32Array).set(b);
    (this.unbuiltParts[s] as Int32Array).set(u);
    return this.solve(s, b.length, u.length, a);
  }

  /** V for counts already sorted descending and checked (the window table's hot path). */
  valueSorted(built: ArrayLike<number>, b: number, unbuilt: ArrayLike<number>, k: number): number {
    const levelBuilt = this.builtParts;
    let a = 0;
    let n = 0;
    for (let i = 0; i < b; i++) a += built[i] as number;
    for (let i = 0; i < k; i++) n += unbuilt[i] as number;
    const s = a + n;
    const bp = levelBuilt[s] as Int32Array;
    const up = this.unbuiltParts[s] as Int32Array;
    for (let i = 0; i < b; i++) bp[i] = built[i] as number;
    for (let i = 0; i < k; i++) up[i] = unbuilt[i] as number;
    return this.solve(s, b, k, a);
  }

  /** The scale shared by every hot set: the H-th largest count, unseen classes counting 0 (the H-th smallest when rho < 1). */
  private scale(built: Int32Array, b: number, unbuilt: Int32Array, k: number): number {
    const { H, N } = this;
    if (this.rho >= 1) {
      // Both parts are descending: merge their tops.
      let [i, j] = [0, 0];
      let c = 0;
      for (let taken = 0; taken < H; taken++) {
        const x = i < b ? (built[i] as number) : 0;
        const y = j < k ? (unbuilt[j] as number) : 0;
        if (x >= y && i < b) {
          c = x;
          i++;
        } else if (j < k) {
          c = y;
          j++;
        } else return 0;
      }
      return c;
    }
    if (N - b - k >= H) return 0;
    const all: number[] = [];
    for (let i = 0; i < b; i++) all.push(built[i] as number);
    for (let i = 0; i < k; i++) all.push(unbuilt[i] as number);
    while (all.length < N) all.push(0);
    all.sort((x, y) => x - y);
    return all[H - 1] as number;
  }

  /**
   * The predictive at draw count s for the parts in the level-s buffers:
   * fills the level's groups (built, then unbuilt, then the unseen) and
   * returns their number.
   */
  private predict(s: number, b: number, k: number): number {
    const { N, H, powers, pre, q, T } = this;
    const built = this.builtParts[s] as Int32Array;
    const unbuilt = this.unbuiltParts[s] as Int32Array;
    const gc = this.groupCount[s] as Int32Array;
    const gn = this.groupSize[s] as Int32Array;
    const gk = this.groupKind[s] as Int8Array;
    const ga = this.groupAt[s] as Int32Array;
    const gp = this.groupP[s] as Float64Array;
    let G = 0;
    for (let i = 0; i < b; ) {
      const c = built[i] as number;
      let j = i;
      while (j + 1 < b && built[j + 1] === c) j++;
      gc[G] = c;
      gn[G] = j - i + 1;
      gk[G] = 0;
      ga[G++] = i;
      i = j + 1;
    }
    for (let i = 0; i < k; ) {
      const c = unbuilt[i] as number;
      let j = i;
      while (j + 1 < k && unbuilt[j + 1] === c) j++;
      gc[G] = c;
      gn[G] = j - i + 1;
      gk[G] = 1;
      ga[G++] = i;
      i = j + 1;
    }
    const unseen = N - b - k;
    if (unseen > 0) {
      gc[G] = 0;
      gn[G] = unseen;
      gk[G] = 2;
      ga[G++] = k;
    }
    const cStar = this.scale(built, b, unbuilt, k);
    // P = prod_g (1 + w_g x)^{n_g}; per group, the product without one of its classes: for a
    // small weight (at most 1/8: its class is outside the top H, whose weights are >= 1 and
    // stay in the product) by dividing P by (1 + w x), which is then stable; else directly.
    const width = H + 1;
    pre.fill(0, 0, width);
    pre[0] = 1;
    for (let g = 0; g < G; g++) {
      const w = powers[(gc[g] as number) - cStar + T + 1] as number;
      for (let r = 0; r < (gn[g] as number); r++) for (let d = H; d >= 1; d--) pre[d] = (pre[d] as number) + w * (pre[d - 1] as number);
    }
    const z = pre[H] as number;
    for (let g = 0; g < G; g++) {
      const w = powers[(gc[g] as number) - cStar + T + 1] as number;
      if (w <= 0.125) {
        q[0] = 1;
        for (let d = 1; d <= H; d++) q[d] = (pre[d] as number) - w * (q[d - 1] as number);
      } else {
        q.fill(0);
        q[0] = 1;
        for (let o = 0; o < G; o++) {
          const wo = powers[(gc[o] as number) - cStar + T + 1] as number;
          const times = (gn[o] as number) - (o === g ? 1 : 0);
          for (let r = 0; r < times; r++) for (let d = H; d >= 1; d--) q[d] = (q[d] as number) + wo * (q[d - 1] as number);
        }
      }
      // That class drawn: its weight becomes rho w; P = tau Z(child) / Z.
      gp[g] = (this.trap * (q[H] as number) + this.hot * w * (q[H - 1] as number)) / z;
    }
    return G;
  }

  /**
   * P(next draw is a built class) = tau b + (h - tau) E[hot classes among the built], the
   * posterior of that number being proportional to e_j(built weights) e_{H-j}(other weights).
   */
  private builtMass(s: number, b: number, k: number): number {
    const { N, H, powers, T, q } = this;
    const built = this.builtParts[s] as Int32Array;
    const unbuilt = this.unbuiltParts[s] as Int32Array;
    if (b === 0) return 0;
    if (b >= N) return 1;
    const cStar = this.scale(built, b, unbuilt, k);
    const eb = this.pre;
    const er = this.suf;
    eb.fill(0, 0, H + 1);
    er.fill(0, 0, H + 1);
    eb[0] = 1;
    er[0] = 1;
    for (let i = 0; i < b; i++) {
      const w = powers[(built[i] as number) - cStar + T + 1] as number;
      for (let d = H; d >= 1; d--) eb[d] = (eb[d] as number) + w * (eb[d - 1] as number);
    }
    for (let i = 0; i < k; i++) {
      const w = powers[(unbuilt[i] as number) - cStar + T + 1] as number;
      for (let d = H; d >= 1; d--) er[d] = (er[d] as number) + w * (er[d - 1] as number);
    }
    const w0 = powers[-cStar + T + 1] as number;
    for (let i = b + k; i < N; i++) for (let d = H; d >= 1; d--) er[d] = (er[d] as number) + w0 * (er[d - 1] as number);
    let z = 0;
    let hotBuilt = 0;
    for (let j = 0; j <= H; j++) {
      const term = (eb[j] as number) * (er[H - j] as number);
      q[j] = term;
      z += term;
      hotBuilt += j * term;
    }
    return this.trap * b + ((this.hot - this.trap) * hotBuilt) / z;
  }

  /** V at draw count s of the parts in the level-s buffers; a = the built classes' items. */
  private solve(s: number, b: number, k: number, a: number): number {
    const { T, B, K, N } = this;
    if (s >= T) return 0;
    if (b >= B || b >= N || s >= this.neverBuildFrom) return (T - s) * this.builtMass(s, b, k);
    const built = this.builtParts[s] as Int32Array;
    const unbuilt = this.unbuiltParts[s] as Int32Array;
    const n = s - a;
    const layerIndex = (b * (T + 1) + a) * (T + 1) + n;
    const unbuiltShapes = this.partitions.count(n, N - b, n);
    let layer = this.layers[layerIndex];
    if (!layer) {
      layer = new Float64Array(this.partitions.count(a - b, b, a - b) * unbuiltShapes).fill(NaN);
      this.layers[layerIndex] = layer;
      this.cells += layer.length;
    }
    let builtLength = 0;
    for (let i = 0; i < b && (built[i] as number) > 1; i++) this.rankBuffer[builtLength++] = (built[i] as number) - 1;
    const index = this.partitions.rank(this.rankBuffer, builtLength, a - b, b) * unbuiltShapes + this.partitions.rank(unbuilt, k, n, N - b);
    const known = layer[index] as number;
    if (!Number.isNaN(known)) return known;

    const G = this.predict(s, b, k);
    const gc = this.groupCount[s] as Int32Array;
    const gn = this.groupSize[s] as Int32Array;
    const gk = this.groupKind[s] as Int8Array;
    const ga = this.groupAt[s] as Int32Array;
    const gp = this.groupP[s] as Float64Array;
    const childBuilt = this.builtParts[s + 1] as Int32Array;
    const childUnbuilt = this.unbuiltParts[s + 1] as Int32Array;
    let v = 0;
    for (let g = 0; g < G; g++) {
      const count = gc[g] as number;
      const at = ga[g] as number;
      const p = (gn[g] as number) * (gp[g] as number);
      if (p === 0) continue;
      if (gk[g] === 0) {
        for (let i = 0; i < b; i++) childBuilt[i] = built[i] as number;
        childBuilt[at] = count + 1;
        for (let i = 0; i < k; i++) childUnbuilt[i] = unbuilt[i] as number;
        v += p * (1 + this.solve(s + 1, b, k, a + 1));
        continue;
      }
      // Pass: the class's count rises (its leftmost copy keeps the parts descending).
      for (let i = 0; i < b; i++) childBuilt[i] = built[i] as number;
      for (let i = 0; i < k; i++) childUnbuilt[i] = unbuilt[i] as number;
      let pass: number;
      if (gk[g] === 1) {
        childUnbuilt[at] = count + 1;
        pass = this.solve(s + 1, b, k, a);
      } else {
        childUnbuilt[k] = 1;
        pass = this.solve(s + 1, b, k + 1, a);
      }
      // Build: the class (rightmost copy of its count) joins the built parts with count + 1.
      let insert = 0;
      while (insert < b && (built[insert] as number) >= count + 1) insert++;
      for (let i = 0; i < insert; i++) childBuilt[i] = built[i] as number;
      childBuilt[insert] = count + 1;
      for (let i = insert; i < b; i++) childBuilt[i + 1] = built[i] as number;
      let build: number;
      if (gk[g] === 1) {
        const last = at + (gn[g] as number) - 1;
        for (let i = 0; i < last; i++) childUnbuilt[i] = unbuilt[i] as number;
        for (let i = last + 1; i < k; i++) childUnbuilt[i - 1] = unbuilt[i] as number;
        build = 1 - K + this.solve(s + 1, b + 1, k - 1, a + count + 1);
      } else {
        for (let i = 0; i < k; i++) childUnbuilt[i] = unbuilt[i] as number;
        build = 1 - K + this.solve(s + 1, b + 1, k, a + 1);
      }
      v += p * (build > pass ? build : pass);
    }
    layer[index] = v;
    this.solved++;
    return v;
  }
}

/** The first draw count s at which 1 + rMax (T - s - 1) <= K: from there no build can repay its charge. */
export function neverBuildFrom(T: number, K: number, rMax: number): number {
  if (K <= 1) return T;
  // 1 + rMax (T - s - 1) <= K  <=>  s >= T - 1 - (K - 1) / rMax
  const s = Math.ceil(T - 1 - (K - 1) / rMax - 1e-12);
  return Math.max(0, Math.min(T, s));
}

/**
 * Twins are shared by every table with the same setting (tables differ by
 * where they drop the window marks). The most recently used are kept up to
 * this many bytes.
 */
const TWIN_BYTES_KEPT = 512 * 2 ** 20;
const twins = new Map<string, TwinTable>();

/** The (lazily solved) twin of a setting; the window is ignored. */
export function twinTable(setting: TwinSetting, maxStates = Infinity): TwinTable {
  const { horizon, budget, charge, classCount, hotCount, hotMass } = setting;
  const key = `${horizon}|${budget}|${charge}|${classCount}|${hotCount}|${hotMass}`;
  let twin = twins.get(key);
  if (twin) twins.delete(key);
  else twin = new TwinTable({ horizon, budget, charge, classCount, hotCount, hotMass, window: 0 }, maxStates);
  twins.set(key, twin);
  let bytes = 0;
  for (const kept of twins.values()) bytes += kept.bytes;
  for (const [oldest, kept] of twins) {
    if (bytes <= TWIN_BYTES_KEPT || kept === twin) break;
    twins.delete(oldest);
    bytes -= kept.bytes;
  }
  return twin;
}

import { InputError } from '../errors.js';
import { PartitionRank } from './partition-rank.js';

/**
 * The exact same-information Bayes-optimal policy under a symmetric
 * Dirichlet(alpha) prior over N class rates, by dynamic programming over
 * belief states (the authors' ExactDP, paper Appendix B.5's comparator).
 *
 * The agent knows T, B, K, N and the class history. After s draws a class
 * seen c times is next with probability (alpha + c) / (N alpha + s), and one of
 * the U unseen classes with U alpha / (N alpha + s). Value = expected future
 * net: +1 per credited item (a built class's items, and the item at which a
 * class is built), -K per build; a pass earns 0.
 *
 * State, canonical under exchangeability: the number of built classes, their
 * total count, and the descending counts of the seen-but-unbuilt classes.
 * Built classes are never decided on again and the Dirichlet aggregates: their
 * future draws follow one pooled class of parameter alpha |built| + sum(built),
 * so only that sum matters (the authors kept the multiset; values are equal).
 * With no budget left the Polya urn gives the value in closed form.
 */

export interface BayesSetting {
  /** T, the number of draws. */
  readonly horizon: number;
  /** B. */
  readonly budget: number;
  /** K, the visible charge per build. */
  readonly charge: number;
  /** N, disclosed. */
  readonly classCount: number;
  readonly alpha: number;
  /**
   * The authors' optional cap: a seen unbuilt class arriving with count >= cap
   * is built (forced). It bounds unbuilt counts, so the table shrinks; at high
   * charges it forces builds the exact policy never makes. null: exact.
   */
  readonly cap: number | null;
}

/** A belief state before an arrival. */
export interface BeliefState {
  /** Classes built so far. */
  readonly built: number;
  /** Their items so far. */
  readonly builtItems: number;
  /** Counts of the seen classes not built, any order. */
  readonly unbuilt: readonly number[];
}

export interface BuildChoice {
  /** Expected future net when passing the arriving item. */
  readonly pass: number;
  /** Expected future net when building its class now (1 - K included). */
  readonly build: number;
  /** Build only when strictly better (ties, within rounding, pass), or when the cap forces it. */
  readonly commit: boolean;
}

/** Values this close (relative) are a tie: summation order must not flip a decision. */
const TIE = 1e-9;

/**
 * The largest table solved (8 bytes a state): T = 60, B = 3 has 6.3 million
 * states (3-4 s on one core), T = 80 already 43 million, so longer streams need a cap.
 */
export const MAX_STATES = 25_000_000;

export class BayesTable {
  private readonly partitions: PartitionRank;
  /** Values by layer (built, builtItems, unbuilt sum) then by partition rank; NaN = not solved yet. */
  private readonly layers: (Float64Array | undefined)[];
  /** States beyond the cap's dense prefix (reached only from an off-policy history). */
  private readonly overflow = new Map<string, number>();
  /** One parts buffer per draw count s: a state's children live at s + 1. */
  private readonly buffers: Int32Array[];
  private solved = 0;
  private cells = 0;

  constructor(readonly setting: BayesSetting) {
    validate(setting);
    const { horizon: T, budget: B, classCount: N } = setting;
    this.partitions = new PartitionRank(T, Math.min(N, T));
    const states = this.stateCount();
    if (states > MAX_STATES) {
      throw new InputError(
        `bayes: the exact table for T=${T}, B=${B}, N=${N} has ${states.toExponential(2)} states (at most ${MAX_STATES.toExponential(2)}); set a cap`,
      );
    }
    this.layers = new Array<Float64Array | undefined>(Math.min(B, N) * (T + 1) * (T + 1));
    this.buffers = Array.from({ length: T + 2 }, () => new Int32Array(Math.min(N, T) + 1));
  }

  /** States with budget left and s < T, each solved at most once: the table's size when fully solved. */
  stateCount(): number {
    const { horizon: T, budget: B, classCount: N, cap } = this.setting;
    let states = 0;
    for (let built = 0; built < Math.min(B, N); built++) {
      for (let builtItems = built === 0 ? 0 : built; builtItems < T; builtItems++) {
        for (let sum = 0; builtItems + sum < T; sum++) states += this.partitions.count(sum, N - built, cap ?? sum);
        if (built === 0) break;
      }
    }
    return states;
  }

  /** Belief states solved so far (the table's size). */
  get size(): number {
    return this.solved;
  }

  /** Bytes held by the dense layers (allocated a layer at a time, so at least 8 per solved state). */
  get bytes(): number {
    return this.cells * Float64Array.BYTES_PER_ELEMENT;
  }

  /** Expected future net of the optimal policy from a state. */
  value(state: BeliefState): number {
    const { length, sum } = this.load(state);
    return this.solve(state.built, state.builtItems, length, sum);
  }

  /** The decision on an arriving item whose class was seen `count` times before (0: unseen, not in `state.unbuilt`). */
  choose(state: BeliefState, count: number): BuildChoice {
    const { budget: B, charge: K, cap } = this.setting;
    const { length, sum } = this.load(state);
    const s = state.builtItems + sum;
    const parts = this.buffers[s] as Int32Array;
    const at = count === 0 ? length : parts.subarray(0, length).indexOf(count);
    if (at < 0 || (count === 0 && state.built + length >= this.setting.classCount))
      throw new InputError(`bayes: no ${count === 0 ? 'unseen class is left' : `unbuilt class has count ${count}`}`);
    if (state.built >= B) return { pass: this.passValue(state.built, state.builtItems, length, sum, at), build: -Infinity, commit: false };
    const build =
      1 - K + this.buildValue(state.built, state.builtItems, length, sum, count === 0 ? -1 : parts.lastIndexOf(count, length - 1));
    const pass = this.passValue(state.built, state.builtItems, length, sum, at);
    const forced = cap !== null && count > 0 && count >= cap;
    return { pass, build, commit: forced || build > pass + TIE * Math.max(1, Math.abs(pass)) };
  }

  /** Copies the unbuilt counts, descending, into the buffer of their draw count. */
  private load(state: BeliefState): { length: number; sum: number } {
    const sorted = [...state.unbuilt].sort((a, b) => b - a);
    const sum = sorted.reduce((total, c) => total + c, 0);
    const s = state.builtItems + sum;
    if (s < 0 || s > this.setting.horizon) throw new InputError(`bayes: ${s} draws seen but T = ${this.setting.horizon}`);
    if (state.built + sorted.length > this.setting.classCount || sorted.some((c) => !(c >= 1)))
      throw new InputError(`bayes: ${state.built} built and counts [${sorted.join(', ')}] do not fit N = ${this.setting.classCount}`);
    (this.buffers[s] as Int32Array).set(sorted);
    return { length: sorted.length, sum };
  }

  /** Value after passing: part `at` (its leftmost copy, or a new 1 at `length`) rises by one. */
  private passValue(built: number, builtItems: number, length: number, sum: number, at: number): number {
    const s = builtItems + sum;
    const parts = this.buffers[s] as Int32Array;
    const child = this.buffers[s + 1] as Int32Array;
    for (let i = 0; i < length; i++) child[i] = parts[i] as number;
    child[at] = at < length ? (parts[at] as number) + 1 : 1;
    return this.solve(built, builtItems, at < length ? length : length + 1, sum + 1);
  }

  /** Value after building: part `at` (the rightmost copy of its count, -1 for an unseen class) moves to the built pool. */
  private buildValue(built: number, builtItems: number, length: number, sum: number, at: number): number {
    const s = builtItems + sum;
    const parts = this.buffers[s] as Int32Array;
    const child = this.buffers[s + 1] as Int32Array;
    if (at < 0) {
      for (let i = 0; i < length; i++) child[i] = parts[i] as number;
      return this.solve(built + 1, builtItems + 1, length, sum);
    }
    const count = parts[at] as number;
    for (let i = 0; i < at; i++) child[i] = parts[i] as number;
    for (let i = at + 1; i < length; i++) child[i - 1] = parts[i] as number;
    return this.solve(built + 1, builtItems + count + 1, length - 1, sum - count);
  }

  /** V(state), the state's unbuilt counts in the buffer of s = builtItems + sum. */
  private solve(built: number, builtItems: number, length: number, sum: number): number {
    const { horizon: T, budget: B, charge: K, classCount: N, alpha, cap } = this.setting;
    const s = builtItems + sum;
    if (s >= T) return 0;
    const draws = N * alpha + s;
    const builtMass = alpha * built + builtItems;
    // No builds left: each remaining draw is a built class's with probability builtMass / draws (Polya urn).
    if (built >= B || built === N) return ((T - s) * builtMass) / draws;

    const parts = this.buffers[s] as Int32Array;
    const layerIndex = (built * (T + 1) + builtItems) * (T + 1) + sum;
    const layer = this.layer(layerIndex, built, sum);
    const rank = this.partitions.rank(parts, length, sum, N - built);
    const known = rank < layer.length ? (layer[rank] as number) : (this.overflow.get(`${layerIndex}:${rank}`) ?? NaN);
    if (!Number.isNaN(known)) return known;

    let v = 0;
    if (builtMass > 0) {
      const child = this.buffers[s + 1] as Int32Array;
      for (let i = 0; i < length; i++) child[i] = parts[i] as number;
      v += (builtMass / draws) * (1 + this.solve(built, builtItems + 1, length, sum));
    }
    for (let i = 0; i < length; ) {
      const count = parts[i] as number;
      let j = i;
      while (j + 1 < length && parts[j + 1] === count) j++;
      const build = 1 - K + this.buildValue(built, builtItems, length, sum, j);
      const forced = cap !== null && count >= cap;
      const best = forced ? build : Math.max(build, this.passValue(built, builtItems, length, sum, i));
      v += (((j - i + 1) * (alpha + count)) / draws) * best;
      i = j + 1;
    }
    const unseen = N - built - length;
    if (unseen > 0) {
      const build = 1 - K + this.buildValue(built, builtItems, length, sum, -1);
      const pass = this.passValue(built, builtItems, length, sum, length);
      v += ((unseen * alpha) / draws) * Math.max(build, pass);
    }

    if (rank < layer.length) layer[rank] = v;
    else this.overflow.set(`${layerIndex}:${rank}`, v);
    this.solved++;
    return v;
  }

  /** The dense layer of states with these built classes and unbuilt sum: partitions within the cap. */
  private layer(index: number, built: number, sum: number): Float64Array {
    let layer = this.layers[index];
    if (!layer) {
      const { classCount: N, cap } = this.setting;
      layer = new Float64Array(this.partitions.count(sum, N - built, cap ?? sum)).fill(NaN);
      this.layers[index] = layer;
      this.cells += layer.length;
    }
    return layer;
  }
}

/**
 * Solved tables are shared by every policy and decision with the same setting
 * (a policy agent is built anew for each call). The most recently used are
 * kept up to this many bytes: a whole economic grid at T = 60 (B in {1, 3, 5},
 * four charges) takes about 450 MiB, so interleaved cells are not re-solved.
 */
const TABLE_BYTES_KEPT = 512 * 2 ** 20;
const tables = new Map<string, BayesTable>();

function validate({ horizon: T, budget: B, charge: K, classCount: N, alpha, cap }: BayesSetting): void {
  if (!Number.isInteger(T) || T < 1) throw new InputError(`bayes: T must be a positive integer, got ${T}`);
  if (!Number.isInteger(B) || B < 0) throw new InputError(`bayes: B must be a non-negative integer, got ${B}`);
  if (!Number.isInteger(N) || N < 1) throw new InputError(`bayes: N must be a positive integer, got ${N}`);
  if (!(alpha > 0) || !Number.isFinite(alpha)) throw new InputError(`bayes: alpha must be positive, got ${alpha}`);
  if (!Number.isFinite(K)) throw new InputError(`bayes: K must be finite, got ${K}`);
  if (cap !== null && (!Number.isInteger(cap) || cap < 1)) throw new InputError(`bayes: cap must be a positive integer, got ${cap}`);
}

/** The (lazily solved) table for a setting. */
export function bayesTable(setting: BayesSetting): BayesTable {
  const { horizon: T, budget: B, charge: K, classCount: N, alpha, cap } = setting;
  const key = `${T}|${B}|${K}|${N}|${alpha}|${cap}`;
  let table = tables.get(key);
  if (table) tables.delete(key);
  else table = new BayesTable({ horizon: T, budget: B, charge: K, classCount: N, alpha, cap });
  tables.set(key, table);
  let bytes = 0;
  for (const kept of tables.values()) bytes += kept.bytes;
  for (const [oldest, kept] of tables) {
    if (bytes <= TABLE_BYTES_KEPT || kept === table) break;
    tables.delete(oldest);
    bytes -= kept.bytes;
  }
  return table;
}

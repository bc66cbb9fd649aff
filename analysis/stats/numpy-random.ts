/*
 * numpy's default generator, bit for bit: `numpy.random.default_rng(seed)` is a
 * Generator over PCG64 seeded through SeedSequence(seed), and
 * `Generator.integers(low, high, size)` (int64, high - low ≤ 2^32 - 1) draws each
 * entry with Lemire's bounded rejection on 32-bit draws. Written from numpy's
 * bit_generator.pyx (SeedSequence), pcg64.h / pcg64.c (PCG64) and
 * distributions.c (random_bounded_uint64_fill, buffered_bounded_lemire_uint32);
 * test/fixtures/numpy-default-rng.json holds numpy's own output to check it.
 *
 * 128-bit arithmetic runs on eight 16-bit limbs held in doubles, so every
 * product and carry stays exact without BigInt.
 */

// SeedSequence's hashing constants (O'Neill's seed_seq_fe, 32-bit words).
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

/** The entropy words of a non-negative integer seed, lowest 32 bits first (`[0]` for 0). */
function entropyWords(seed: number): number[] {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`numpy-random: seed must be a non-negative safe integer, not ${seed}`);
  const words = [seed % 2 ** 32];
  for (let rest = Math.floor(seed / 2 ** 32); rest > 0; rest = Math.floor(rest / 2 ** 32)) words.push(rest % 2 ** 32);
  return words;
}

/** SeedSequence(seed)'s pool of four words after mixing in the entropy. */
function seedPool(seed: number): Uint32Array {
  const entropy = entropyWords(seed);
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = new Uint32Array(POOL_SIZE);
  for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < entropy.length ? (entropy[i] as number) : 0);
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst] as number, hashmix(pool[src] as number));
    }
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst] as number, hashmix(entropy[src] as number));
  }
  return pool;
}

/**
 * `SeedSequence(seed).generate_state(words, np.uint32)`. The uint64 form
 * numpy's PCG64 asks for (`generate_state(4, np.uint64)`) is these 8 words
 * paired little-endian: uint64 k = word 2k + 2^32 · word 2k+1.
 */
export function seedSequenceState(seed: number, words: number): Uint32Array {
  const pool = seedPool(seed);
  const state = new Uint32Array(words);
  let hashConst = INIT_B;
  for (let i = 0; i < words; i++) {
    let v = ((pool[i % POOL_SIZE] as number) ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_B) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    state[i] = (v ^ (v >>> 16)) >>> 0;
  }
  return state;
}

// PCG's default 128-bit multiplier 2549297995355413924 · 2^64 + 4865540595714422341
// (0x2360ed051fc65da4_4385df649fccf645), as 16-bit limbs M0 (least significant) to M7.
const M0 = 0xf645;
const M1 = 0x9fcc;
const M2 = 0xdf64;
const M3 = 0x4385;
const M4 = 0x5da4;
const M5 = 0x1fc6;
const M6 = 0xed05;
const M7 = 0x2360;
const LIMB = 0x10000;
type Limbs = [number, number, number, number, number, number, number, number];

/** The 16-bit limbs, least significant first, of a 128-bit number given as 32-bit words, most significant first. */
function limbsOf(words: readonly number[]): number[] {
  return [...words].reverse().flatMap((word) => [word & 0xffff, word >>> 16]);
}

/**
 * numpy's PCG64 (PCG XSL-RR 128/64, "setseq": a state and an odd increment).
 * Each 64-bit output advances the LCG first, then applies XSL-RR to the new state.
 * The state and increment are 16-bit limbs s0..s7 and i0..i7, least significant first.
 */
export class Pcg64 {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  private s4 = 0;
  private s5 = 0;
  private s6 = 0;
  private s7 = 0;
  private readonly i0: number;
  private readonly i1: number;
  private readonly i2: number;
  private readonly i3: number;
  private readonly i4: number;
  private readonly i5: number;
  private readonly i6: number;
  private readonly i7: number;
  /** numpy's has_uint32 and uinteger: the high half of a 64-bit draw, kept for the next 32-bit output. */
  private hasPending = false;
  private pending = 0;
  // The last 64-bit output, as 32-bit words.
  private outLow = 0;
  private outHigh = 0;

  /** PCG64(SeedSequence(seed)), the bit generator of `default_rng(seed)`. */
  constructor(seed: number) {
    const w = Array.from(seedSequenceState(seed, 8));
    // generate_state(4, uint64) is [s0, s1, i0, i1], uint64 k = w[2k] + 2^32 · w[2k+1];
    // initstate = s0 · 2^64 + s1 and initseq = i0 · 2^64 + i1 (pcg64_set_seed).
    const initState = limbsOf([w[1], w[0], w[3], w[2]] as number[]);
    const initSeq = limbsOf([w[5], w[4], w[7], w[6]] as number[]);
    // pcg_setseq_128_srandom_r: state = 0, inc = initseq << 1 | 1, step, state += initstate, step.
    const inc: number[] = [];
    let carry = 1;
    for (const limb of initSeq) {
      const doubled = 2 * limb + carry;
      carry = doubled >= LIMB ? 1 : 0;
      inc.push(doubled - carry * LIMB);
    }
    [this.i0, this.i1, this.i2, this.i3, this.i4, this.i5, this.i6, this.i7] = inc as Limbs;
    this.step();
    const state = [this.s0, this.s1, this.s2, this.s3, this.s4, this.s5, this.s6, this.s7];
    carry = 0;
    state.forEach((limb, i) => {
      const sum = limb + (initState[i] as number) + carry;
      carry = sum >= LIMB ? 1 : 0;
      state[i] = sum - carry * LIMB;
    });
    [this.s0, this.s1, this.s2, this.s3, this.s4, this.s5, this.s6, this.s7] = state as Limbs;
    this.step();
  }

  /** state = state · M + inc (mod 2^128), limb by limb; every sum stays below 2^36, exact in a double. */
  private step(): void {
    const { s0, s1, s2, s3, s4, s5, s6, s7 } = this;
    let carry = 0;
    let acc: number;
    acc = this.i0 + carry + s0 * M0;
    carry = Math.floor(acc / LIMB);
    this.s0 = acc - carry * LIMB;
    acc = this.i1 + carry + s0 * M1 + s1 * M0;
    carry = Math.floor(acc / LIMB);
    this.s1 = acc - carry * LIMB;
    acc = this.i2 + carry + s0 * M2 + s1 * M1 + s2 * M0;
    carry = Math.floor(acc / LIMB);
    this.s2 = acc - carry * LIMB;
    acc = this.i3 + carry + s0 * M3 + s1 * M2 + s2 * M1 + s3 * M0;
    carry = Math.floor(acc / LIMB);
    this.s3 = acc - carry * LIMB;
    acc = this.i4 + carry + s0 * M4 + s1 * M3 + s2 * M2 + s3 * M1 + s4 * M0;
    carry = Math.floor(acc / LIMB);
    this.s4 = acc - carry * LIMB;
    acc = this.i5 + carry + s0 * M5 + s1 * M4 + s2 * M3 + s3 * M2 + s4 * M1 + s5 * M0;
    carry = Math.floor(acc / LIMB);
    this.s5 = acc - carry * LIMB;
    acc = this.i6 + carry + s0 * M6 + s1 * M5 + s2 * M4 + s3 * M3 + s4 * M2 + s5 * M1 + s6 * M0;
    carry = Math.floor(acc / LIMB);
    this.s6 = acc - carry * LIMB;
    acc = this.i7 + carry + s0 * M7 + s1 * M6 + s2 * M5 + s3 * M4 + s4 * M3 + s5 * M2 + s6 * M1 + s7 * M0;
    this.s7 = acc - Math.floor(acc / LIMB) * LIMB;
  }

  /** Steps, then sets outHigh/outLow to XSL-RR of the new state: rotr64(high64 ^ low64, state >> 122). */
  private draw64(): void {
    this.step();
    let lo = ((this.s0 + this.s1 * LIMB) ^ (this.s4 + this.s5 * LIMB)) >>> 0;
    let hi = ((this.s2 + this.s3 * LIMB) ^ (this.s6 + this.s7 * LIMB)) >>> 0;
    let rot = this.s7 >>> 10; // the top 6 bits
    if (rot >= 32) {
      const swap = lo;
      lo = hi;
      hi = swap;
      rot -= 32;
    }
    if (rot > 0) {
      const newLo = ((lo >>> rot) | (hi << (32 - rot))) >>> 0;
      hi = ((hi >>> rot) | (lo << (32 - rot))) >>> 0;
      lo = newLo;
    }
    this.outLow = lo;
    this.outHigh = hi;
  }

  /** The 128-bit state and increment, as numpy's `bit_generator.state['state']` gives them. */
  getState(): { state: bigint; inc: bigint } {
    const join = (limbs: readonly number[]) => limbs.reduceRight((value, limb) => (value << 16n) | BigInt(limb), 0n);
    return {
      state: join([this.s0, this.s1, this.s2, this.s3, this.s4, this.s5, this.s6, this.s7]),
      inc: join([this.i0, this.i1, this.i2, this.i3, this.i4, this.i5, this.i6, this.i7]),
    };
  }

  /** The next 64-bit output (`bit_generator.random_raw()`); like numpy's next64, it leaves a pending 32-bit half alone. */
  nextUint64(): bigint {
    this.draw64();
    return (BigInt(this.outHigh) << 32n) | BigInt(this.outLow);
  }

  /** numpy's next_uint32: the low 32 bits of a fresh 64-bit draw, then its high 32 bits. */
  nextUint32(): number {
    if (this.hasPending) {
      this.hasPending = false;
      return this.pending;
    }
    this.draw64();
    this.hasPending = true;
    this.pending = this.outHigh;
    return this.outLow;
  }
}

/** `numpy.random.default_rng(seed)`, the part of it this code uses. */
export class NumpyGenerator {
  readonly bitGenerator: Pcg64;

  constructor(seed: number) {
    this.bitGenerator = new Pcg64(seed);
  }

  /**
   * `integers(low, high, size=count)` with the default int64 dtype: `count`
   * integers in [low, high), in numpy's order (a matrix of shape (rows, cols)
   * is these entries row-major). Needs high - low ≤ 2^32 - 1, where numpy
   * draws 32-bit words with Lemire's rejection (buffered_bounded_lemire_uint32).
   */
  integers(low: number, high: number, count: number): Float64Array {
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || high <= low) {
      throw new Error(`numpy-random: integers needs safe integers low < high, not ${low}, ${high}`);
    }
    if (high - low > 2 ** 32 - 1) throw new Error(`numpy-random: integers supports high - low up to 2^32 - 1, not ${high - low}`);
    if (!Number.isSafeInteger(count) || count < 0) throw new Error(`numpy-random: bad count ${count}`);
    const out = new Float64Array(count).fill(low);
    const range = high - low; // rng + 1 in numpy's terms (rng is inclusive)
    if (range === 1) return out; // rng = 0: numpy draws nothing
    const bits = this.bitGenerator;
    // Lemire: m = x · range for a 32-bit x; accept unless m's low 32 bits fall below 2^32 mod range.
    const threshold = 2 ** 32 % range;
    for (let i = 0; i < count; i++) {
      let x = bits.nextUint32();
      while (lemireLeftover(x, range) < threshold) x = bits.nextUint32();
      out[i] = low + lemireHigh(x, range);
    }
    return out;
  }
}

const TWO_32 = 2 ** 32;

/** The low 32 bits of x · range (x < 2^32, range < 2^32), exactly. */
function lemireLeftover(x: number, range: number): number {
  if (range <= 0x200000) return (x * range) % TWO_32; // below 2^53: exact as it stands
  // x · range = x · rangeHigh · 2^16 + x · rangeLow, each product below 2^48.
  const bLow = (x * Math.floor(range / LIMB)) % LIMB;
  return (x * (range % LIMB) + bLow * LIMB) % TWO_32;
}

/** The high 32 bits of x · range (x < 2^32, range < 2^32), exactly. */
function lemireHigh(x: number, range: number): number {
  if (range <= 0x200000) return Math.floor((x * range) / TWO_32);
  const b = x * Math.floor(range / LIMB);
  const bLow = b % LIMB;
  const t = x * (range % LIMB) + bLow * LIMB;
  return (b - bLow) / LIMB + Math.floor(t / TWO_32);
}

/** `numpy.random.default_rng(seed)`. */
export function defaultRng(seed: number): NumpyGenerator {
  return new NumpyGenerator(seed);
}

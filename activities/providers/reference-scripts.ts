import type { FamilyName } from '../../core/families/family.js';

/**
 * The R3 reference builder's scripts: for each family, JavaScript a competent
 * model could write from one instance, reading the paper's upper-case input
 * keys. They compute in BigInt wherever values pass 2^53 and return a BigInt
 * (the sandbox hands it back as its decimal string); they are checked against
 * the core's gold solvers through the real sandbox.
 */
export const REFERENCE_SCRIPTS: Readonly<Record<FamilyName, string>> = {
  lcg: `function solve({ SEED, A, B, M, K }) {
  const m = BigInt(M);
  let x = BigInt(SEED) % m;
  for (let i = 0; i < K; i++) x = (BigInt(A) * x + BigInt(B)) % m;
  return x;
}`,
  modpow: `function solve({ BASE, EXP, MOD }) {
  const m = BigInt(MOD);
  let result = 1n % m, b = BigInt(BASE) % m, e = BigInt(EXP);
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
  }
  return result;
}`,
  continued_frac: `function solve({ TERMS }) {
  let [previous, current] = [0n, 1n];
  for (const term of TERMS) [previous, current] = [current, BigInt(term) * current + previous];
  return current;
}`,
  crt_solve: `function solve({ REMAINDERS, MODULI }) {
  const inverse = (a, m) => {
    let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    return ((s0 % m) + m) % m;
  };
  const total = MODULI.reduce((product, m) => product * BigInt(m), 1n);
  let x = 0n;
  MODULI.forEach((m, i) => {
    const rest = total / BigInt(m);
    x += BigInt(REMAINDERS[i]) * rest * inverse(rest % BigInt(m), BigInt(m));
  });
  return x % total;
}`,
  josephus: `function solve({ N, K }) {
  let survivor = 0;
  for (let size = 2; size <= N; size++) survivor = (survivor + K) % size;
  return survivor + 1;
}`,
  quadratic_map_mod: `function solve({ X, C, MOD, K }) {
  const m = BigInt(MOD);
  let x = BigInt(X) % m;
  for (let i = 0; i < K; i++) x = (x * x + BigInt(C)) % m;
  return x;
}`,
  xorshift_steps: `function solve({ X, A, B, C, K }) {
  let state = X >>> 0;
  for (let i = 0; i < K; i++) {
    state = (state ^ (state << A)) >>> 0;
    state = (state ^ (state >>> B)) >>> 0;
    state = (state ^ (state << C)) >>> 0;
  }
  return state;
}`,
  matrix_power_mod: `function solve({ A, B, C, D, MOD, K }) {
  const m = BigInt(MOD);
  const times = (p, q) => [
    [(p[0][0] * q[0][0] + p[0][1] * q[1][0]) % m, (p[0][0] * q[0][1] + p[0][1] * q[1][1]) % m],
    [(p[1][0] * q[0][0] + p[1][1] * q[1][0]) % m, (p[1][0] * q[0][1] + p[1][1] * q[1][1]) % m],
  ];
  let result = [[1n % m, 0n], [0n, 1n % m]];
  let power = [[A, B], [C, D]].map((row) => row.map((v) => BigInt(v) % m));
  for (let e = BigInt(K); e > 0n; e >>= 1n) {
    if (e & 1n) result = times(result, power);
    power = times(power, power);
  }
  return (result[0][0] + result[0][1] + result[1][0] + result[1][1]) % m;
}`,
};

/** A script that fails at run time: the builder's injected broken build. */
export const BROKEN_SCRIPT = `function solve(inputs) {
  throw new Error('not implemented yet');
}`;

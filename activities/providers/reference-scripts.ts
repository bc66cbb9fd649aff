import type { FamilyName } from '../../core/families/family.js';

/**
 * The R3 reference builder's scripts: for each family, JavaScript a competent
 * model could write from one instance. They use BigInt where products pass
 * 2^53 and are checked against the core's solvers through the real sandbox.
 */
export const REFERENCE_SCRIPTS: Readonly<Record<FamilyName, string>> = {
  lcg: `function solve({ x0, a, c, m, steps }) {
  const M = BigInt(m);
  let x = BigInt(x0) % M;
  for (let i = 0; i < steps; i++) x = (BigInt(a) * x + BigInt(c)) % M;
  return x;
}`,
  modpow: `function solve({ base, exponent, modulus }) {
  const m = BigInt(modulus);
  if (m === 1n) return 0;
  let result = 1n, b = BigInt(base) % m, e = BigInt(exponent);
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
  }
  return result;
}`,
  continued_frac: `function solve({ terms }) {
  let [previous, current] = [0n, 1n];
  for (const term of terms) [previous, current] = [current, BigInt(term) * current + previous];
  return current;
}`,
  crt_solve: `function solve({ residues, moduli }) {
  const inverse = (a, m) => {
    let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    return ((s0 % m) + m) % m;
  };
  const total = moduli.reduce((product, m) => product * BigInt(m), 1n);
  let x = 0n;
  moduli.forEach((m, i) => {
    const rest = total / BigInt(m);
    x += BigInt(residues[i]) * rest * inverse(rest % BigInt(m), BigInt(m));
  });
  return x % total;
}`,
  josephus: `function solve({ n, k }) {
  let survivor = 0;
  for (let size = 2; size <= n; size++) survivor = (survivor + k) % size;
  return survivor + 1;
}`,
  quadratic_map_mod: `function solve({ x0, c, m, steps }) {
  const M = BigInt(m);
  let x = BigInt(x0) % M;
  for (let i = 0; i < steps; i++) x = (x * x + BigInt(c)) % M;
  return x;
}`,
  xorshift_steps: `function solve({ x, steps, shifts: [left1, right, left2] }) {
  let state = x >>> 0;
  for (let i = 0; i < steps; i++) {
    state = (state ^ (state << left1)) >>> 0;
    state = (state ^ (state >>> right)) >>> 0;
    state = (state ^ (state << left2)) >>> 0;
  }
  return state;
}`,
  matrix_power_mod: `function solve({ matrix, exponent, modulus }) {
  const m = BigInt(modulus);
  const times = (p, q) => [
    [(p[0][0] * q[0][0] + p[0][1] * q[1][0]) % m, (p[0][0] * q[0][1] + p[0][1] * q[1][1]) % m],
    [(p[1][0] * q[0][0] + p[1][1] * q[1][0]) % m, (p[1][0] * q[0][1] + p[1][1] * q[1][1]) % m],
  ];
  let result = [[1n % m, 0n], [0n, 1n % m]];
  let power = matrix.map((row) => row.map((v) => BigInt(v) % m));
  for (let e = BigInt(exponent); e > 0n; e >>= 1n) {
    if (e & 1n) result = times(result, power);
    power = times(power, power);
  }
  return result[0][0];
}`,
};

/** A script that fails at run time: the builder's injected broken build. */
export const BROKEN_SCRIPT = `function solve(inputs) {
  throw new Error('not implemented yet');
}`;

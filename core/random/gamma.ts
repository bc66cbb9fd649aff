import { randomUnit, type Rng } from './rng.js';

/*
 * Gamma and Dirichlet variates from the core's seeded generator. Hand-written
 * because the maintained numeric libraries that offer them either draw from
 * Math.random (jstat) or bring hundreds of packages with Node fs imports
 * (@stdlib), neither of which fits the pure core.
 */

/** Standard normal variate (Box–Muller). */
export function sampleNormal(rng: Rng): number {
  const u1 = 1 - randomUnit(rng); // (0, 1]: log(0) never happens
  const u2 = randomUnit(rng);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Gamma(shape, 1) variate: Marsaglia and Tsang (2000), boosted for shape < 1. */
export function sampleGamma(rng: Rng, shape: number): number {
  if (shape < 1) {
    const boost = Math.pow(1 - randomUnit(rng), 1 / shape);
    return sampleGamma(rng, shape + 1) * boost;
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = sampleNormal(rng);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = randomUnit(rng);
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Rates drawn from a symmetric Dirichlet(alpha) over `size` categories. */
export function sampleSymmetricDirichlet(rng: Rng, alpha: number, size: number): number[] {
  const gammas = Array.from({ length: size }, () => sampleGamma(rng, alpha));
  const total = gammas.reduce((sum, g) => sum + g, 0);
  return gammas.map((g) => g / total);
}

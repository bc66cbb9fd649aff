import { describe, expect, it } from 'vitest';
import { sampleGamma, sampleNormal, sampleSymmetricDirichlet } from '../../../core/random/gamma.js';
import { createRng } from '../../../core/random/rng.js';

const moments = (values: readonly number[]) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
};

describe('sampleNormal', () => {
  it('has mean 0 and variance 1', () => {
    const rng = createRng(11);
    const { mean, variance } = moments(Array.from({ length: 50_000 }, () => sampleNormal(rng)));
    expect(Math.abs(mean)).toBeLessThan(5 / Math.sqrt(50_000));
    expect(Math.abs(variance - 1)).toBeLessThan(0.03);
  });
});

describe('sampleGamma', () => {
  it.each([0.5, 1, 2, 7.5, 40])('matches the mean and variance of Gamma(%s, 1)', (shape) => {
    const rng = createRng(Math.round(shape * 10));
    const n = 40_000;
    const values = Array.from({ length: n }, () => sampleGamma(rng, shape));
    expect(Math.min(...values)).toBeGreaterThan(0);
    const { mean, variance } = moments(values);
    // Both moments equal the shape; allow five standard errors.
    expect(Math.abs(mean - shape)).toBeLessThan(5 * Math.sqrt(shape / n));
    expect(Math.abs(variance / shape - 1)).toBeLessThan(5 * Math.sqrt((2 + 6 / shape) / n));
  });
});

describe('sampleSymmetricDirichlet', () => {
  it('returns rates on the simplex with mean 1/size', () => {
    const rng = createRng(5);
    const sums = Array.from({ length: 8 }, () => 0);
    const draws = 5000;
    for (let i = 0; i < draws; i++) {
      const rates = sampleSymmetricDirichlet(rng, 1, 8);
      expect(rates.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      rates.forEach((r, j) => (sums[j] = (sums[j] as number) + r));
    }
    // Each marginal is Beta(1, 7): variance 7 / (64 * 9).
    for (const total of sums) expect(Math.abs(total / draws - 1 / 8)).toBeLessThan(5 * Math.sqrt(7 / 576 / draws));
  });
});

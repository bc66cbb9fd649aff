import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { createRng } from '../../../core/random/rng.js';
import { runSession } from '../../../core/session/run-session.js';
import { drawDirichletClasses } from '../../../core/simulate/dirichlet-classes.js';
import { runPanel } from '../../../core/simulate/panel.js';
import { simulate, type StreamPrior } from '../../../core/simulate/simulate.js';
import { drawClassSequence } from '../../../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG } from '../../../core/stream/stream-config.js';

const benchmark: StreamPrior = { kind: 'benchmark', config: DEFAULT_STREAM_CONFIG };
const dirichlet = (alpha: number): StreamPrior => ({ kind: 'dirichlet', alpha, classCount: 8, length: 60 });

/** Mean and standard error of the per-stream utility difference between commit-at-a and commit-at-b. */
function pairedDifference(prior: StreamPrior, a: number, b: number, streams: number): { mean: number; se: number } {
  const differences = Array.from({ length: streams }, (_, seed) => {
    const classes =
      prior.kind === 'benchmark'
        ? drawClassSequence(seed, prior.config).classes
        : drawDirichletClasses(createRng(seed), prior.alpha, 8, 60);
    const utility = (k: number) => sessionMetrics(runSession(classes, { budget: 3, charge: 0, classCount: 8 }, commitAtK(k))).utility;
    return utility(a) - utility(b);
  });
  const mean = differences.reduce((s, d) => s + d, 0) / streams;
  const variance = differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (streams - 1);
  return { mean, se: Math.sqrt(variance / streams) };
}

describe('simulate', () => {
  it('reports the mean utility with its standard error', () => {
    const streams = 300;
    const result = simulate({ policy: { name: 'commit-at-k', k: 2 }, prior: benchmark, streams, budget: 3, charge: 0, seed: 0 });
    const utilities = Array.from({ length: streams }, (_, seed) => {
      const { classes } = drawClassSequence(seed, DEFAULT_STREAM_CONFIG);
      return sessionMetrics(runSession(classes, { budget: 3, charge: 0, classCount: 8 }, commitAtK(2))).utility;
    });
    const mean = utilities.reduce((a, b) => a + b, 0) / streams;
    const sd = Math.sqrt(utilities.reduce((a, u) => a + (u - mean) ** 2, 0) / (streams - 1));
    expect(result.meanUtility).toBeCloseTo(mean, 10);
    expect(result.utilityStandardError).toBeCloseTo(sd / Math.sqrt(streams), 10);
    expect(result.pooled.sessions).toBe(streams);
  });

  it('has the hindsight reference reach the optimum on every stream', () => {
    for (const charge of [0, 10, 24]) {
      const result = simulate({ policy: { name: 'hindsight' }, prior: benchmark, streams: 500, budget: 3, charge, seed: 7 });
      expect(result.pooled.meanRegret).toBe(0);
    }
  });

  it('charges K per commitment: eager pays 3K per stream', () => {
    const free = simulate({ policy: { name: 'eager' }, prior: benchmark, streams: 200, budget: 3, charge: 0, seed: 1 });
    const charged = simulate({ policy: { name: 'eager' }, prior: benchmark, streams: 200, budget: 3, charge: 10, seed: 1 });
    expect(charged.meanUtility).toBe(free.meanUtility);
    expect(charged.meanNet).toBeCloseTo(free.meanUtility - 30, 10);
  });
});

describe('Appendix A comparisons, qualitatively', () => {
  it('under Dirichlet(1), waiting for the second occurrence beats first sight, which beats the third', () => {
    const secondVsFirst = pairedDifference(dirichlet(1), 2, 1, 4000);
    const firstVsThird = pairedDifference(dirichlet(1), 1, 3, 4000);
    expect(secondVsFirst.mean).toBeGreaterThan(3 * secondVsFirst.se);
    expect(firstVsThird.mean).toBeGreaterThan(3 * firstVsThird.se);
  });

  it('on the benchmark generator, the second occurrence beats first sight by a wide margin', () => {
    const { mean, se } = pairedDifference(benchmark, 2, 1, 2000);
    expect(mean - 3 * se).toBeGreaterThan(5);
  });
});

describe('runPanel', () => {
  it('plays every policy on the same panel streams', () => {
    const panel = runPanel([2000, 2001, 2002], DEFAULT_STREAM_CONFIG, { budget: 3, charge: 0 }, [{ name: 'eager' }, { name: 'hindsight' }]);
    expect(panel.streams.map((s) => s.seed)).toEqual([2000, 2001, 2002]);
    const [eager, hindsight] = panel.policies;
    expect(eager?.pooled.firstSight).toBe(1);
    expect(hindsight?.pooled.score).toBe(1);
    expect(eager?.sessions.map((s) => s.optimum)).toEqual(hindsight?.sessions.map((s) => s.optimum));
  });
});

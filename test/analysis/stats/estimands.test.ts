import { describe, expect, it } from 'vitest';
import { onlineMetrics, poolOnlineMetrics } from '../../../core/metrics/online-metrics.js';
import { poolMetrics } from '../../../core/metrics/pooled-metrics.js';
import { loopMetrics } from '../../../core/scripts/loop-metrics.js';
import { summarizeArm } from '../../../analysis/stats/arm-summary.js';
import { pairedMeanDifference, pairedRatioDifference, marginalRatioInterval } from '../../../analysis/stats/bootstrap.js';
import { marginalEstimate, repooledDifference, seedMeanDifference } from '../../../analysis/stats/contrasts.js';
import {
  ESTIMANDS,
  pairedSeedRatios,
  pairedSeedValues,
  seedRatios,
  seedValue,
  seedValues,
  type EstimandName,
} from '../../../analysis/stats/ratio-estimands.js';
import { pairBySeed, pairSeeds, type SeedSession } from '../../../analysis/stats/seed-session.js';
import { session } from './session-fixtures.js';

/*
 * Arm A (say R1; B = 3, K = 0), three seeds:
 *   2000: 3 commitments, 2 at first sight; 4 eligible first occurrences; lateness 0+0+1 = 1;
 *         utility 40 of optimum 50; keeps 2/4 at occurrence 1, 1/2 at occurrence 2;
 *         8 decision turns, 1 unresolved.
 *   2001: no commitment; 8 eligible first occurrences; utility 0 of 48; keeps 0/8, 0/5, 0/3;
 *         30 decision turns, 10 of them truncated, 2 unresolved.
 *   2002: 2 commitments, none at first sight (occurrences 2 and 3: lateness 1+2 = 3);
 *         3 eligible first occurrences; utility 30 of 45; keeps 0/3, 1/2, 1/1; 6 decision turns.
 */
const armA: SeedSession[] = [
  session(2001, {
    commitments: 0,
    firstOccurrenceTurns: 8,
    optimum: 48,
    regret: 48,
    keepsByOccurrence: [
      { eligible: 8, keeps: 0 },
      { eligible: 5, keeps: 0 },
      { eligible: 3, keeps: 0 },
    ],
    decisionTurns: 30,
    truncated: 10,
    unresolved: 2,
  }),
  session(2000, {
    commitments: 3,
    firstSightCommitments: 2,
    firstOccurrenceTurns: 4,
    totalLateness: 1,
    utility: 40,
    net: 40,
    optimum: 50,
    regret: 10,
    keepsByOccurrence: [
      { eligible: 4, keeps: 2 },
      { eligible: 2, keeps: 1 },
    ],
    decisionTurns: 8,
    unresolved: 1,
  }),
  session(2002, {
    commitments: 2,
    firstOccurrenceTurns: 3,
    totalLateness: 3,
    utility: 30,
    net: 30,
    optimum: 45,
    regret: 15,
    keepsByOccurrence: [
      { eligible: 3, keeps: 0 },
      { eligible: 2, keeps: 1 },
      { eligible: 1, keeps: 1 },
    ],
    decisionTurns: 6,
  }),
];

/* Arm B (say R2) on the same seeds: 3/3, 3/3 and 2/3 commitments at first sight. */
const armB: SeedSession[] = [
  session(2000, { commitments: 3, firstSightCommitments: 3 }),
  session(2001, { commitments: 3, firstSightCommitments: 3 }),
  session(2002, { commitments: 3, firstSightCommitments: 2 }),
];

describe('summarizeArm on hand-built sessions', () => {
  it('gives every pooled estimand', () => {
    const summary = summarizeArm('R1', armA);
    expect(summary).toMatchObject({
      rung: 'R1',
      seeds: 3,
      firstSight: 2 / 5, // (2 + 0 + 0) / (3 + 0 + 2)
      firstSightBySeed: [
        { seed: 2000, value: 2 / 3 },
        { seed: 2001, value: null },
        { seed: 2002, value: 0 },
      ],
      score: 70 / 143, // (40 + 0 + 30) / (50 + 48 + 45)
      firstSightHazard: 2 / 15, // 2 / (4 + 8 + 3)
      meanLateness: 4 / 5, // (1 + 0 + 3) / 5
      budgetUtilization: 5 / 9, // 5 / (3 + 3 + 3)
      zeroCommitSeeds: 1,
      zeroCommitIncidence: 1 / 3,
      commitmentsPerSeed: 5 / 3,
      itemsPerStream: 70 / 3,
      keepAtOccurrence1: { occurrence: 1, eligible: 15, keeps: 2, rate: 2 / 15 }, // (2+0+0) / (4+8+3)
      keepAtOccurrence2: { occurrence: 2, eligible: 9, keeps: 2, rate: 2 / 9 }, // (1+0+1) / (2+5+2)
      meanNet: 70 / 3,
      meanOptimum: 143 / 3,
      meanRegret: 73 / 3, // (10 + 48 + 15) / 3
      unresolvedRate: 3 / 34, // (1 + 2 + 0) / (8 + (30 - 10) + 6)
      script: null,
    });
  });

  it('reports no occurrence-2 keep rate where no second occurrence was eligible', () => {
    const summary = summarizeArm('R0', [
      session(1, { commitments: 1, firstSightCommitments: 1, keepsByOccurrence: [{ eligible: 1, keeps: 1 }] }),
    ]);
    expect(summary.keepAtOccurrence2).toEqual({ occurrence: 2, eligible: 0, keeps: 0, rate: null });
  });

  it('has no Score at R3 and pools the R3 diagnostics', () => {
    // classes 0 1 0 2 0 1, B = 2: writes at 2 (first sight) and 3 (2nd occurrence), one refused run, three runs.
    const { metrics, script } = loopMetrics({
      classes: [0, 1, 0, 2, 0, 1],
      budget: 2,
      shown: 6,
      calls: 14,
      writes: [
        { t: 2, name: 'b' },
        { t: 3, name: 'a' },
      ],
      runs: [
        { t: 2, name: 'b', returned: true, correct: true },
        { t: 5, name: 'a', returned: false, correct: false },
        { t: 6, name: 'b', returned: true, correct: true },
      ],
      submissions: [{ t: 2, correct: true, byHand: false }],
      writesRefused: 0,
      crossClassRunsRefused: 1,
      // The three runs and the refused one.
      runAttempts: 4,
      malformedCalls: 0,
      unknownCalls: 0,
      forcedAdvances: 0,
    });
    const summary = summarizeArm('R3', [{ seed: 2000, metrics, script }]);
    // 2 builds, 1 at first sight; first sights eligible at t1 and t2.
    expect(summary).toMatchObject({ score: null, firstSight: 1 / 2, firstSightHazard: 1 / 2, commitmentsPerSeed: 2 });
    expect(summary.script).toMatchObject({
      builds: 2,
      firstSightBuilds: 1,
      crossClassRunsRefused: 1,
      runAttempts: 4,
      refusedRunRate: 1 / 4,
    });
    expect(() =>
      summarizeArm('R3', [
        { seed: 1, metrics, script },
        { seed: 2, metrics },
      ]),
    ).toThrow(/some sessions but not all/);
  });

  it('rejects a seed twice in one arm', () => {
    expect(() => summarizeArm('R0', [armB[0] as SeedSession, armB[0] as SeedSession])).toThrow(/seed 2000 appears twice/);
  });
});

describe('estimand descriptions', () => {
  it('give the per-seed values worked out by hand', () => {
    const m2000 = (armA[1] as SeedSession).metrics;
    expect(seedValue('firstSight', m2000)).toBe(2 / 3);
    expect(seedValue('firstSightHazard', m2000)).toBe(2 / 4);
    expect(seedValue('meanLateness', m2000)).toBe(1 / 3);
    expect(seedValue('score', m2000)).toBe(40 / 50);
    expect(seedValue('zeroCommitIncidence', m2000)).toBe(0);
    expect(seedValue('keepAtOccurrence2', m2000)).toBe(1 / 2);
    expect(seedValue('regret', m2000)).toBe(10);
    expect(seedValue('keepAtOccurrence2', (armB[0] as SeedSession).metrics)).toBeNull();
    expect(seedValues('meanLateness', armA)).toEqual([
      { seed: 2000, value: 1 / 3 },
      { seed: 2001, value: null },
      { seed: 2002, value: 3 / 2 },
    ]);
  });

  it('re-pool to the values of core poolMetrics', () => {
    const pooled = poolMetrics(armA.map((s) => s.metrics));
    const repooled = (name: EstimandName) => {
      const rows = seedRatios(name, armA);
      const den = rows.reduce((t, r) => t + r.den, 0);
      return den === 0 ? null : rows.reduce((t, r) => t + r.num, 0) / den;
    };
    expect(repooled('firstSight')).toBe(pooled.firstSight);
    expect(repooled('firstSightHazard')).toBe(pooled.firstSightHazard);
    expect(repooled('meanLateness')).toBe(pooled.meanLateness);
    expect(repooled('score')).toBe(pooled.score);
    expect(repooled('budgetUtilization')).toBe(pooled.budgetUtilization);
    expect(repooled('zeroCommitIncidence')).toBe(pooled.zeroCommitIncidence);
    expect(repooled('commitmentsPerSeed')).toBe(pooled.commitmentsPerSession);
    expect(repooled('itemsPerStream')).toBe(pooled.itemsPerStream);
    expect(repooled('keepAtOccurrence1')).toBe(pooled.keepByOccurrence[0]?.rate);
    expect(repooled('keepAtOccurrence2')).toBe(pooled.keepByOccurrence[1]?.rate);
    expect(repooled('net')).toBe(pooled.meanNet);
    expect(repooled('optimum')).toBe(pooled.meanOptimum);
    expect(repooled('regret')).toBe(pooled.meanRegret);
    expect(Object.keys(ESTIMANDS)).toHaveLength(15);
  });

  it("re-pool the online estimands to core's poolOnlineMetrics, and refuse sessions without policy/optimal's net", () => {
    // policy/optimal nets a few items less than the hindsight optimum on each stream.
    const online = armA.map((s, i) => ({ ...s, online: onlineMetrics(s.metrics.net, s.metrics.optimum - 2 - i) }));
    const pooled = poolOnlineMetrics(online.map((s) => ({ net: s.metrics.net, online: s.online })));
    const repooled = (name: EstimandName) => {
      const rows = seedRatios(name, online);
      return rows.reduce((t, r) => t + r.num, 0) / rows.reduce((t, r) => t + r.den, 0);
    };
    expect(repooled('onlineScore')).toBe(pooled.score);
    expect(repooled('onlineRegret')).toBe(pooled.meanRegret);
    expect(summarizeArm('R1', online).online).toEqual(pooled);
    expect(summarizeArm('R1', armA).online).toBeNull();
    expect(() => seedRatios('onlineScore', armA)).toThrow(/policy\/optimal's net on the session's stream was not computed/);
    expect(() => summarizeArm('R1', [...online.slice(1), armA[0] as SeedSession])).toThrow(/computed for some sessions but not all/);
  });

  it('pair two arms by seed for both paired estimands', () => {
    expect(pairedSeedRatios('firstSight', armA, armB)).toEqual([
      { seed: 2000, aNum: 2, aDen: 3, bNum: 3, bDen: 3 },
      { seed: 2001, aNum: 0, aDen: 0, bNum: 3, bDen: 3 },
      { seed: 2002, aNum: 0, aDen: 2, bNum: 2, bDen: 3 },
    ]);
    expect(pairedSeedValues('firstSight', armA, armB)).toEqual([
      { seed: 2000, a: 2 / 3, b: 1 },
      { seed: 2001, a: null, b: 1 },
      { seed: 2002, a: 0, b: 2 / 3 },
    ]);
    expect(() => pairBySeed(armA, armB.slice(1))).toThrow(/differ in seeds: 2000/);
  });

  it('pair seeds only where both sessions played the same stream: the same class sequence with other items is paired and named; other streams are refused', () => {
    const on = (arm: readonly SeedSession[], streams: Record<number, [string, string]>) =>
      arm.map((s) => ({ ...s, stream: { hash: streams[s.seed]?.[0] ?? '', classes: streams[s.seed]?.[1] ?? '' } }));
    const a = on(armA, { 2000: ['h0', 'abc'], 2001: ['h1', 'abd'], 2002: ['h2', 'aab'] });
    const b = on(armB, { 2000: ['h0', 'abc'], 2001: ['x1', 'abd'], 2002: ['x2', 'bba'] });
    const pairing = pairSeeds(a, b);
    expect(pairing.a.map((s) => s.seed)).toEqual([2000, 2001]);
    expect(pairing.b.map((s) => s.seed)).toEqual([2000, 2001]);
    expect(pairing).toMatchObject({ refused: [2002], latentOnly: [2001], dropped: 2 });
    // Sessions without a recorded stream pair by seed alone.
    expect(pairSeeds(armA, armB.slice(1))).toMatchObject({ refused: [], latentOnly: [], dropped: 1 });
  });
});

describe('contrasts', () => {
  it('C.2: the mean of per-seed differences, the zero-commit seed omitted', () => {
    // B - A per seed: 2000 → 1 - 2/3 = 1/3; 2001 omitted (A has no commitment); 2002 → 2/3 - 0 = 2/3. Mean 1/2.
    const result = seedMeanDifference('firstSight', armA, armB);
    expect(result.estimate).toBeCloseTo(1 / 2, 12);
    expect(result).toMatchObject({ seeds: 2, omittedSeeds: [2001] });
    expect(result).toEqual(pairedMeanDifference(pairedSeedValues('firstSight', armA, armB)));
  });

  it('C.3: the difference of re-pooled ratios, the zero-commit seed kept', () => {
    // B: 8/9; A: 2/5. 8/9 - 2/5 = 22/45.
    const result = repooledDifference('firstSight', armA, armB);
    expect(result.estimate).toBeCloseTo(22 / 45, 12);
    expect(result).toMatchObject({ seeds: 3, omittedSeeds: [] });
    expect(result).toEqual(pairedRatioDifference(pairedSeedRatios('firstSight', armA, armB)));
  });

  it('a per-arm marginal interval around the pooled value', () => {
    const result = marginalEstimate('score', armA);
    expect(result.estimate).toBe(70 / 143);
    expect(result).toEqual(marginalRatioInterval(seedRatios('score', armA)));
    const [lower, upper] = result.interval ?? [NaN, NaN];
    // No resample can fall below the worst seed (0/48) or above the best (40/50).
    expect(lower).toBeGreaterThanOrEqual(0);
    expect(upper).toBeLessThanOrEqual(40 / 50);
    expect(lower).toBeLessThan(70 / 143);
    expect(upper).toBeGreaterThan(70 / 143);
  });
});

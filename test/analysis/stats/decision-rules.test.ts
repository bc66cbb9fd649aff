import { describe, expect, it } from 'vitest';
import { competenceGate, localize, suppressionReplication, validity, type LadderRung } from '../../../analysis/stats/decision-rules.js';
import type { SeedSession } from '../../../analysis/stats/seed-session.js';
import { firstSightArm, session } from './session-fixtures.js';

/** One seed per rung arm holding (first-sight, commitments). */
const ladder = (counts: Record<LadderRung, readonly [number, number]>) => ({
  R0: firstSightArm([counts.R0]),
  R1: firstSightArm([counts.R1]),
  R2: firstSightArm([counts.R2]),
  R3: firstSightArm([counts.R3]),
});

describe('localization rule (A.2)', () => {
  it('triggers at the earliest adjacent rise of at least 30 points', () => {
    // 10% → 20% (+10) → 50% (+30, exactly the threshold) → 100% (+50): R2, not R3.
    const result = localize(ladder({ R0: [1, 10], R1: [2, 10], R2: [5, 10], R3: [10, 10] }));
    expect(result.trigger).toBe('R2');
    expect(result.steps.map((s) => s.triggers)).toEqual([false, true, true]);
  });

  it('counts 40% → 70% as 30 points although 0.7 - 0.4 < 0.3 in floating point', () => {
    const result = localize(ladder({ R0: [4, 10], R1: [4, 10], R2: [7, 10], R3: [7, 10] }));
    expect(result.trigger).toBe('R2');
    expect(result.steps[1]?.increase).toBeCloseTo(0.3, 12);
  });

  it('has no trigger when every step rises by less than 30 points', () => {
    // +29, +29, +29 points: 0 → 29% → 58% → 87%, a 87-point rise overall but no adjacent step.
    const result = localize(ladder({ R0: [0, 100], R1: [29, 100], R2: [58, 100], R3: [87, 100] }));
    expect(result.trigger).toBeNull();
  });

  it('leaves a step from or to a rung without commitments undefined', () => {
    // R1 has none: R0→R1 and R1→R2 are undefined, and R2→R3 (+0) does not trigger.
    const result = localize(ladder({ R0: [0, 3], R1: [0, 0], R2: [3, 3], R3: [3, 3] }));
    expect(result.steps.map((s) => s.increase)).toEqual([null, null, 0]);
    expect(result.trigger).toBeNull();
  });

  it('reads Table 2 by pooled counts', () => {
    // Haiku 4.5 (72 commitments at R0–R2, 68 builds at R3): 27.8% → 33.3% → 98.6% → 100%: R2.
    expect(localize(ladder({ R0: [20, 72], R1: [24, 72], R2: [71, 72], R3: [68, 68] })).trigger).toBe('R2');
    // GPT-5.6 Sol: 23.6% → 0% → 38.9% → 100%. The rule as written triggers at R2 (+38.9 points),
    // although Table 2 names R3 as Sol's failure point.
    expect(localize(ladder({ R0: [17, 72], R1: [0, 72], R2: [28, 72], R3: [53, 53] })).trigger).toBe('R2');
  });
});

describe('abstract competence gate (B.5)', () => {
  const panel = [2000, 2001, 2002, 2003];
  /*
   * Passing exactly at every bar: 3 + 3 + 2 + 2 = 10 commitments over 4 seeds = 2.5;
   * first sight 1 + 2 + 1 + 1 = 5 of 10 = 50%; collected 20 + 25 + 20 + 25 = 90 against the
   * comparator's 25 × 4 = 100 = 90%.
   */
  const r0 = (changes: Partial<Record<number, Parameters<typeof session>[1]>> = {}): SeedSession[] =>
    [
      { commitments: 3, firstSightCommitments: 1, utility: 20 },
      { commitments: 3, firstSightCommitments: 2, utility: 25 },
      { commitments: 2, firstSightCommitments: 1, utility: 20 },
      { commitments: 2, firstSightCommitments: 1, utility: 25 },
    ].map((fields, i) => session(2000 + i, { ...fields, ...changes[2000 + i] }));
  const comparator = new Map(panel.map((seed) => [seed, 25]));

  it('passes at the bars', () => {
    const gate = competenceGate(panel, r0(), comparator);
    expect(gate).toMatchObject({
      complete: { value: 4, status: 'pass' },
      commitmentsPerSeed: { value: 2.5, status: 'pass' },
      firstSight: { value: 0.5, status: 'pass' },
      comparator: { value: 0.9, status: 'pass' },
      passed: true,
    });
  });

  it('passes on the three criteria when no comparator data is given', () => {
    const gate = competenceGate(panel, r0());
    expect(gate.comparator).toEqual({ value: null, comparison: '>=', threshold: 0.9, status: 'not-evaluated' });
    expect(gate.passed).toBe(true);
  });

  it('fails an incomplete session or a missing seed', () => {
    const truncated = competenceGate(panel, r0({ 2001: { truncated: 5 } }));
    expect(truncated.complete).toMatchObject({ value: 3, status: 'fail' });
    expect(truncated.passed).toBe(false);
    // Without seed 2003 the panel also loses its 2 commitments: 8 / 4 = 2 per seed.
    const missing = competenceGate(panel, r0().slice(0, 3));
    expect(missing).toMatchObject({ complete: { value: 3, status: 'fail' }, commitmentsPerSeed: { value: 2, status: 'fail' } });
  });

  it('fails below 2.5 commitments per seed, above 50% first sight or under 90% of the comparator', () => {
    // 9 commitments: 2.25 per seed.
    expect(competenceGate(panel, r0({ 2000: { commitments: 2 } })).commitmentsPerSeed).toMatchObject({ value: 2.25, status: 'fail' });
    // 6 of 10 at first sight.
    expect(competenceGate(panel, r0({ 2000: { firstSightCommitments: 2 } })).firstSight).toMatchObject({ value: 0.6, status: 'fail' });
    // 89 collected against 100.
    const gate = competenceGate(panel, r0({ 2000: { utility: 19 } }), comparator);
    expect(gate.comparator).toMatchObject({ value: 0.89, status: 'fail' });
    expect(gate.passed).toBe(false);
  });

  it('rejects seeds outside the panel and a comparator without a seed', () => {
    expect(() => competenceGate(panel.slice(1), r0())).toThrow(/outside the panel: 2000/);
    expect(() => competenceGate(panel, r0(), new Map([...comparator].slice(1)))).toThrow(/no comparator collection for seed 2000/);
  });
});

describe('suppression replication (B.5)', () => {
  it('passes with ≥ 80% treated first sight, a ≥ 30-point rise and a positive lower endpoint', () => {
    // R0 0/3, 1/3, 0/3, 1/3 → 2/12; R2 3/3, 2/3, 3/3, 2/3 → 10/12 = 83%: +66.7 points.
    // Every seed rises (by 1 or 1/3), so every resample mean is at least 1/3.
    const result = suppressionReplication(
      firstSightArm([
        [0, 3],
        [1, 3],
        [0, 3],
        [1, 3],
      ]),
      firstSightArm([
        [3, 3],
        [2, 3],
        [3, 3],
        [2, 3],
      ]),
    );
    expect(result.treatedFirstSight).toMatchObject({ value: 10 / 12, status: 'pass' });
    expect(result.increase.value).toBeCloseTo(2 / 3, 12);
    expect(result.lowerEndpoint.value).toBeCloseTo(1 / 3, 12);
    expect(result.paired.estimate).toBeCloseTo(2 / 3, 12); // (1 + 1/3 + 1 + 1/3) / 4
    expect(result.passed).toBe(true);
  });

  it('fails under 80% treated first sight', () => {
    // R2 9/12 = 75%.
    const result = suppressionReplication(
      firstSightArm([
        [0, 6],
        [0, 6],
      ]),
      firstSightArm([
        [5, 6],
        [4, 6],
      ]),
    );
    expect(result.treatedFirstSight).toMatchObject({ value: 0.75, status: 'fail' });
    expect(result).toMatchObject({ increase: { status: 'pass' }, lowerEndpoint: { status: 'pass' }, passed: false });
  });

  it('fails a rise under 30 points', () => {
    // R0 6/10 = 60% → R2 17/20 = 85%: +25 points.
    const result = suppressionReplication(
      firstSightArm([
        [3, 5],
        [3, 5],
      ]),
      firstSightArm([
        [9, 10],
        [8, 10],
      ]),
    );
    expect(result.increase).toMatchObject({ status: 'fail' });
    expect(result.increase.value).toBeCloseTo(0.25, 12);
    expect(result.passed).toBe(false);
  });

  it('fails when the paired interval reaches 0', () => {
    // Seed 2000: 0/3 → 3/3 (+1); seed 2001: 1/1 → 2/3 (-1/3). Pooled 1/4 → 5/6: +58 points, 83%.
    // A quarter of the resamples draw seed 2001 twice (mean -1/3), so the 2.5th percentile is -1/3.
    const result = suppressionReplication(
      firstSightArm([
        [0, 3],
        [1, 1],
      ]),
      firstSightArm([
        [3, 3],
        [2, 3],
      ]),
    );
    expect(result).toMatchObject({ treatedFirstSight: { status: 'pass' }, increase: { status: 'pass' } });
    expect(result.lowerEndpoint.value).toBeCloseTo(-1 / 3, 12);
    expect(result.lowerEndpoint.status).toBe('fail');
    expect(result.passed).toBe(false);
  });
});

describe('validity flag (B.6)', () => {
  it('is valid at 10% unresolved of the decision turns reached, invalid above', () => {
    // 40 decision turns, 10 never reached: 3 of 30 reached = 10%.
    expect(validity([session(1, { decisionTurns: 40, truncated: 10, unresolved: 3 })])).toEqual({
      unresolved: 3,
      reached: 30,
      unresolvedRate: 0.1,
      valid: true,
    });
    // 2 + 2 of 20 + 20 = 10% across a cell is still valid; one more unresolved turn is not.
    expect(validity([session(1, { decisionTurns: 20, unresolved: 2 }), session(2, { decisionTurns: 20, unresolved: 2 })]).valid).toBe(true);
    expect(validity([session(1, { decisionTurns: 20, unresolved: 3 }), session(2, { decisionTurns: 20, unresolved: 2 })]).valid).toBe(
      false,
    );
  });

  it('has nothing to flag when no decision turn was reached', () => {
    expect(validity([session(1, { decisionTurns: 5, truncated: 5 })])).toEqual({
      unresolved: 0,
      reached: 0,
      unresolvedRate: null,
      valid: true,
    });
  });
});

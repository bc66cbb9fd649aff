import { pairedMeanDifference, type BootstrapEstimate, type BootstrapOptions } from './bootstrap.js';
import { pairedSeedValues } from './ratio-estimands.js';
import { sortedBySeed, type SeedSession } from './seed-session.js';

/*
 * The preregistered rules (Appendix A.2, B.5, B.6). Thresholds are exact
 * fractions and counts are compared by cross-multiplication, so that e.g. 70%
 * after 40% is an increase of 30 points and not 29.999…; `value` is for display.
 */

export type Status = 'pass' | 'fail' | 'not-evaluated';

export interface Criterion {
  /** The measured quantity (a fraction for rates); null where undefined or not evaluated. */
  readonly value: number | null;
  readonly comparison: '>=' | '<=' | '>';
  readonly threshold: number;
  readonly status: Status;
}

interface Counts {
  readonly num: number;
  readonly den: number;
}

const criterion = (value: number | null, comparison: Criterion['comparison'], threshold: number, passed: boolean | null): Criterion => ({
  value,
  comparison,
  threshold,
  status: passed === null ? 'not-evaluated' : passed ? 'pass' : 'fail',
});
const rate = ({ num, den }: Counts) => (den > 0 ? num / den : null);
const sum = (arm: readonly SeedSession[], pick: (s: SeedSession) => number) => arm.reduce((total, s) => total + pick(s), 0);
const firstSightCounts = (arm: readonly SeedSession[]): Counts => ({
  num: sum(arm, (s) => s.metrics.firstSightCommitments),
  den: sum(arm, (s) => s.metrics.commitments),
});
/** y - x ≥ p/q for rates x and y; null when either is undefined. */
const increaseAtLeast = (x: Counts, y: Counts, [p, q]: readonly [number, number]) =>
  x.den > 0 && y.den > 0 ? q * (y.num * x.den - x.num * y.den) >= p * x.den * y.den : null;
const increase = (x: Counts, y: Counts) => (x.den > 0 && y.den > 0 ? y.num / y.den - x.num / x.den : null);

/** A minimum effect of interest of 30 percentage points (A.2, B.5). */
const THIRTY_POINTS = [3, 10] as const;

const LADDER = ['R0', 'R1', 'R2', 'R3'] as const;
export type LadderRung = (typeof LADDER)[number];

export interface LocalizationStep {
  readonly from: LadderRung;
  readonly to: LadderRung;
  /** Pooled first-sight among commitments at `to` minus at `from`; null when either rung has no commitment. */
  readonly increase: number | null;
  readonly triggers: boolean;
}

export interface Localization {
  readonly steps: readonly LocalizationStep[];
  /** The later rung of the earliest step up by at least 30 points; null when none is. */
  readonly trigger: LadderRung | null;
}

/**
 * A.2: the trigger is the earliest adjacent rise (R0→R1, R1→R2, R2→R3) of at
 * least 30 points in first-sight commitment pooled among realized commitments.
 * A step from or to a rung without any commitment is undefined and does not trigger.
 */
export function localize(arms: Readonly<Record<LadderRung, readonly SeedSession[]>>): Localization {
  const steps = LADDER.slice(1).map((to, i): LocalizationStep => {
    const from = LADDER[i] as LadderRung;
    const x = firstSightCounts(arms[from]);
    const y = firstSightCounts(arms[to]);
    return { from, to, increase: increase(x, y), triggers: increaseAtLeast(x, y, THIRTY_POINTS) === true };
  });
  return { steps, trigger: steps.find((step) => step.triggers)?.to ?? null };
}

export interface CompetenceGate {
  /** Complete R0 sessions (no decision turn left unreached) out of the panel's seeds. */
  readonly complete: Criterion;
  /** Mean commitments per panel seed (a missing seed counts 0): at least 2.5. */
  readonly commitmentsPerSeed: Criterion;
  /** Pooled first-sight among commitments: at most 50%. */
  readonly firstSight: Criterion;
  /** Σ R0 collected / Σ the comparator's on the same streams: at least 90%; not evaluated without the comparator. */
  readonly comparator: Criterion;
  /** Every evaluated criterion passes. */
  readonly passed: boolean;
}

/**
 * B.5's locked abstract competence gate on a model's R0 arm. `comparator`
 * holds, by seed, what the same-information online Bayesian (Dirichlet)
 * comparator collects on the identical stream; collection is credited items
 * (utility), and the criterion is a ratio of sums (of means).
 */
export function competenceGate(
  panelSeeds: readonly number[],
  r0: readonly SeedSession[],
  comparator?: ReadonlyMap<number, number>,
): CompetenceGate {
  const arm = sortedBySeed(r0);
  const panel = new Set(panelSeeds);
  if (panel.size === 0 || panel.size !== panelSeeds.length) throw new Error('competence gate: the panel needs distinct seeds');
  const outside = arm.filter((s) => !panel.has(s.seed));
  if (outside.length > 0) throw new Error(`competence gate: seeds outside the panel: ${outside.map((s) => s.seed).join(', ')}`);
  const n = panel.size;
  const complete = arm.filter((s) => s.metrics.truncated === 0).length;
  const commitments = sum(arm, (s) => s.metrics.commitments);
  const firstSight = firstSightCounts(arm);
  const collection = comparatorRatio(arm, comparator);
  const criteria = {
    complete: criterion(complete, '>=', n, complete === n),
    commitmentsPerSeed: criterion(commitments / n, '>=', 2.5, 2 * commitments >= 5 * n),
    firstSight: criterion(rate(firstSight), '<=', 0.5, firstSight.den > 0 && 2 * firstSight.num <= firstSight.den),
    comparator: collection
      ? criterion(rate(collection), '>=', 0.9, 10 * collection.num >= 9 * collection.den)
      : criterion(null, '>=', 0.9, null),
  };
  return { ...criteria, passed: Object.values(criteria).every((c) => c.status !== 'fail') };
}

function comparatorRatio(arm: readonly SeedSession[], comparator: ReadonlyMap<number, number> | undefined): Counts | null {
  if (comparator === undefined) return null;
  let den = 0;
  for (const { seed } of arm) {
    const utility = comparator.get(seed);
    if (utility === undefined) throw new Error(`competence gate: no comparator collection for seed ${seed}`);
    den += utility;
  }
  return { num: sum(arm, (s) => s.metrics.utility), den };
}

export interface SuppressionReplication {
  /** Pooled first-sight among commitments at the treated rung: at least 80%. */
  readonly treatedFirstSight: Criterion;
  /** Pooled treated - R0 first-sight: at least 30 points. */
  readonly increase: Criterion;
  /** Lower endpoint of the paired interval: above 0. */
  readonly lowerEndpoint: Criterion;
  /** C.2's paired seed bootstrap of treated - R0 first-sight among commitments (zero-commit seeds omitted). */
  readonly paired: BootstrapEstimate;
  readonly passed: boolean;
}

/** B.5's preregistered suppression replication, at R2 (or, as for GPT-5.6 Sol, at R3). */
export function suppressionReplication(
  r0: readonly SeedSession[],
  treated: readonly SeedSession[],
  options?: BootstrapOptions,
): SuppressionReplication {
  const base = firstSightCounts(r0);
  const late = firstSightCounts(treated);
  const paired = pairedMeanDifference(pairedSeedValues('firstSight', r0, treated), options);
  const lower = paired.interval?.[0] ?? null;
  const criteria = {
    treatedFirstSight: criterion(rate(late), '>=', 0.8, late.den > 0 && 5 * late.num >= 4 * late.den),
    increase: criterion(increase(base, late), '>=', 0.3, increaseAtLeast(base, late, THIRTY_POINTS) === true),
    lowerEndpoint: criterion(lower, '>', 0, lower !== null && lower > 0),
  };
  return { ...criteria, paired, passed: Object.values(criteria).every((c) => c.status === 'pass') };
}

export interface Validity {
  readonly unresolved: number;
  /** Decision turns reached (not truncated). */
  readonly reached: number;
  readonly unresolvedRate: number | null;
  /** False when more than 10% of the decision turns reached are unresolved (B.6). */
  readonly valid: boolean;
}

/** B.6's validity flag for one cell; a cell with no decision turn reached has nothing unresolved. */
export function validity(cell: readonly SeedSession[]): Validity {
  const unresolved = sum(cell, (s) => s.metrics.unresolved);
  const reached = sum(cell, (s) => s.metrics.decisionTurns - s.metrics.truncated);
  return { unresolved, reached, unresolvedRate: rate({ num: unresolved, den: reached }), valid: 10 * unresolved <= reached };
}

import type { OnlineMetrics } from '../../core/metrics/online-metrics.js';
import type { SessionMetrics } from '../../core/metrics/session-metrics.js';
import type { SeedPair, SeedRatio, SeedRatioPair } from './bootstrap.js';
import { pairBySeed, sortedBySeed, type SeedSession } from './seed-session.js';

/**
 * Every estimand of §3.4, C.1 and E is a re-pooled ratio Σ num / Σ den over an
 * arm's sessions (a mean per seed has den 1), so one description serves its
 * per-seed value, its pooled value and the bootstrap's per-seed sums. The pooled
 * values equal core's poolMetrics (tested); these exist for the resampling.
 */
export interface RatioEstimand {
  readonly num: (m: SessionMetrics, online?: OnlineMetrics) => number;
  readonly den: (m: SessionMetrics, online?: OnlineMetrics) => number;
}

/** The session against policy/optimal: an error where its net was not computed (analysis/online-optimum.ts). */
function computed(online: OnlineMetrics | undefined): OnlineMetrics {
  if (!online) throw new Error("online estimand: policy/optimal's net on the session's stream was not computed");
  return online;
}

const keeps = (occurrence: number): RatioEstimand => ({
  num: (m) => m.keepsByOccurrence[occurrence - 1]?.keeps ?? 0,
  den: (m) => m.keepsByOccurrence[occurrence - 1]?.eligible ?? 0,
});
const perSeed = (value: RatioEstimand['num']): RatioEstimand => ({ num: value, den: () => 1 });

export const ESTIMANDS = {
  /** First-sight commitment among commitments (§3.4). */
  firstSight: { num: (m) => m.firstSightCommitments, den: (m) => m.commitments },
  /** Committed share of eligible first-occurrence turns (C.1). */
  firstSightHazard: { num: (m) => m.firstSightCommitments, den: (m) => m.firstOccurrenceTurns },
  /** Mean over commitments of occurrence - 1 (C.1). */
  meanLateness: { num: (m) => m.totalLateness, den: (m) => m.commitments },
  /** Σ net / Σ optimum (equation 2; Σ utility / Σ optimum at K = 0). Not defined for R3. */
  score: { num: (m) => m.net, den: (m) => m.optimum },
  /** Commitments / B (C.1). */
  budgetUtilization: { num: (m) => m.commitments, den: (m) => m.budget },
  /** Share of seeds without a commitment (C.1). */
  zeroCommitIncidence: perSeed((m) => (m.commitments === 0 ? 1 : 0)),
  commitmentsPerSeed: perSeed((m) => m.commitments),
  /** Credited items per stream (F). */
  itemsPerStream: perSeed((m) => m.utility),
  /** P(keep | 1st occurrence), P(keep | 2nd occurrence): descriptive, the risk sets are policy-induced (F). */
  keepAtOccurrence1: keeps(1),
  keepAtOccurrence2: keeps(2),
  /** Net utility, the exact hindsight net optimum and regret, means per seed (E). */
  net: perSeed((m) => m.net),
  optimum: perSeed((m) => m.optimum),
  regret: perSeed((m) => m.regret),
  /** Online Score: Σ net / Σ policy/optimal's net on the same streams (core/metrics/online-metrics.ts). */
  onlineScore: { num: (m: SessionMetrics) => m.net, den: (_: SessionMetrics, online?: OnlineMetrics) => computed(online).optimum },
  /** policy/optimal's net minus the session's, mean per seed. */
  onlineRegret: perSeed((_: SessionMetrics, online?: OnlineMetrics) => computed(online).regret),
} satisfies Record<string, RatioEstimand>;

export type EstimandName = keyof typeof ESTIMANDS;

/** The estimand on one session; null where its denominator is 0 (e.g. first-sight without commitments). */
export function seedValue(name: EstimandName, metrics: SessionMetrics, online?: OnlineMetrics): number | null {
  const { num, den } = ESTIMANDS[name];
  const d = den(metrics, online);
  return d === 0 ? null : num(metrics, online) / d;
}

/** Per-seed values of an arm, ascending by seed. */
export function seedValues(name: EstimandName, arm: readonly SeedSession[]): { seed: number; value: number | null }[] {
  return sortedBySeed(arm).map(({ seed, metrics, online }) => ({ seed, value: seedValue(name, metrics, online) }));
}

/** An arm's per-seed numerators and denominators, for marginalRatioInterval. */
export function seedRatios(name: EstimandName, arm: readonly SeedSession[]): SeedRatio[] {
  const { num, den } = ESTIMANDS[name];
  return sortedBySeed(arm).map(({ seed, metrics, online }) => ({ seed, num: num(metrics, online), den: den(metrics, online) }));
}

/** Two arms' per-seed numerators and denominators, for pairedRatioDifference (C.3). */
export function pairedSeedRatios(name: EstimandName, a: readonly SeedSession[], b: readonly SeedSession[]): SeedRatioPair[] {
  const { num, den } = ESTIMANDS[name];
  return pairBySeed(a, b).map((p) => ({ seed: p.seed, aNum: num(p.a), aDen: den(p.a), bNum: num(p.b), bDen: den(p.b) }));
}

/** Two arms' per-seed values, for pairedMeanDifference (C.2). */
export function pairedSeedValues(name: EstimandName, a: readonly SeedSession[], b: readonly SeedSession[]): SeedPair[] {
  return pairBySeed(a, b).map((p) => ({ seed: p.seed, a: seedValue(name, p.a), b: seedValue(name, p.b) }));
}

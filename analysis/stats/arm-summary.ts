import { poolOnlineMetrics, type OnlineMetrics, type PooledOnlineMetrics } from '../../core/metrics/online-metrics.js';
import { poolMetrics, type KeepRate } from '../../core/metrics/pooled-metrics.js';
import type { Rung } from '../../core/rungs/rung.js';
import { poolScriptMetrics, type PooledScriptMetrics } from '../../core/scripts/pooled-script-metrics.js';
import type { ScriptMetrics } from '../../core/scripts/loop-metrics.js';
import { seedValues } from './ratio-estimands.js';
import { sortedBySeed, type SeedSession } from './seed-session.js';

/** One arm's point estimates (§3.4, C.1, D, E, F), pooled over its seeds by core's poolMetrics. */
export interface ArmSummary {
  readonly rung: Rung;
  readonly seeds: number;
  /** First-sight commitment among commitments, re-pooled; null without any commitment. */
  readonly firstSight: number | null;
  /** The same per seed (null for a zero-commit seed), ascending by seed. */
  readonly firstSightBySeed: readonly { seed: number; value: number | null }[];
  /** Σ net / Σ optimum; null at R3, which the paper does not score, or when Σ optimum is 0. */
  readonly score: number | null;
  readonly firstSightHazard: number | null;
  readonly meanLateness: number | null;
  /** Σ commitments / Σ B. */
  readonly budgetUtilization: number;
  readonly zeroCommitSeeds: number;
  readonly zeroCommitIncidence: number;
  readonly commitmentsPerSeed: number;
  readonly itemsPerStream: number;
  readonly keepAtOccurrence1: KeepRate;
  readonly keepAtOccurrence2: KeepRate;
  readonly meanNet: number;
  readonly meanOptimum: number;
  readonly meanRegret: number;
  /** Unresolved share of the decision turns reached. */
  readonly unresolvedRate: number | null;
  /** R3's diagnostics pooled, when the sessions carry them (at R3 builds are the commitments); else null. */
  readonly script: PooledScriptMetrics | null;
  /** Against policy/optimal on the same streams (online Score, regret); null at R3, as Score, or where its nets were not computed. */
  readonly online: PooledOnlineMetrics | null;
}

export function summarizeArm(rung: Rung, arm: readonly SeedSession[]): ArmSummary {
  const sessions = sortedBySeed(arm);
  const pooled = poolMetrics(sessions.map((s) => s.metrics));
  const keepAt = (occurrence: number): KeepRate =>
    pooled.keepByOccurrence[occurrence - 1] ?? { occurrence, eligible: 0, keeps: 0, rate: null };
  return {
    rung,
    seeds: sessions.length,
    firstSight: pooled.firstSight,
    firstSightBySeed: seedValues('firstSight', sessions),
    score: rung === 'R3' ? null : pooled.score,
    firstSightHazard: pooled.firstSightHazard,
    meanLateness: pooled.meanLateness,
    budgetUtilization: pooled.budgetUtilization,
    zeroCommitSeeds: sessions.filter((s) => s.metrics.commitments === 0).length,
    zeroCommitIncidence: pooled.zeroCommitIncidence,
    commitmentsPerSeed: pooled.commitmentsPerSession,
    itemsPerStream: pooled.itemsPerStream,
    keepAtOccurrence1: keepAt(1),
    keepAtOccurrence2: keepAt(2),
    meanNet: pooled.meanNet,
    meanOptimum: pooled.meanOptimum,
    meanRegret: pooled.meanRegret,
    unresolvedRate: pooled.unresolvedRate,
    script: pooledScripts(sessions),
    online: rung === 'R3' ? null : pooledOnline(sessions),
  };
}

function pooledOnline(sessions: readonly SeedSession[]): PooledOnlineMetrics | null {
  const against = sessions.flatMap((s): { net: number; online: OnlineMetrics }[] =>
    s.online ? [{ net: s.metrics.net, online: s.online }] : [],
  );
  if (against.length === 0) return null;
  if (against.length < sessions.length) throw new Error("arm: policy/optimal's net computed for some sessions but not all");
  return poolOnlineMetrics(against);
}

function pooledScripts(sessions: readonly SeedSession[]): PooledScriptMetrics | null {
  const scripts = sessions.flatMap((s): ScriptMetrics[] => (s.script ? [s.script] : []));
  if (scripts.length === 0) return null;
  if (scripts.length < sessions.length) throw new Error('arm: script metrics on some sessions but not all');
  return poolScriptMetrics(scripts);
}

import { sessionMetrics, type SessionMetrics } from '../metrics/session-metrics.js';
import { withPassedTail } from '../session/replay.js';
import type { DecisionRecord } from '../session/session-record.js';
import { loopMetrics, type LoopRecord, type ScriptMetrics } from './loop-metrics.js';

/**
 * Scores a split agent's R3 session. The allocation measures — commitments,
 * first-sight, hazard, lateness — are the planner's claims, read as R1 reads
 * decision turns (an unresolved turn stays eligible, as a pass) and, as R3
 * replays its builds, with the turns after the session ended as eligible
 * passes. R3's diagnostics (scripts written, runs, script success, answers)
 * are the builder's work. As at R3, utility is the problems answered
 * correctly, and charges are not applied.
 */
export function splitMetrics(
  builder: LoopRecord,
  planner: readonly DecisionRecord[],
  classCount: number | null,
): { metrics: SessionMetrics; script: ScriptMetrics; decisions: DecisionRecord[] } {
  const { classes, budget } = builder;
  const decisions = withPassedTail(classes, { budget, charge: 0, classCount }, planner);
  const claims = sessionMetrics({ classes, rules: { budget, charge: 0 }, decisions });
  const { metrics: built, script } = loopMetrics(builder);
  return { metrics: { ...claims, utility: built.utility, net: built.net, regret: claims.optimum - built.net }, script, decisions };
}

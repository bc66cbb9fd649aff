import type { Arm, ArmKey } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { marginalEstimate, repooledDifference } from '../stats/contrasts.js';
import { pairSeeds } from '../stats/seed-session.js';
import { intervalOf } from './interval-cell.js';
import type { Cell, Table } from './table.js';

const BOOTSTRAP =
  "Seed bootstrap: the resamples are the rows of numpy's default_rng(0) (PCG64) integers(0, n, size=(10000, n)) matrix over the n seeds in ascending order, the same rows for both arms of a contrast; linear-percentile 95% intervals, resamples with an undefined statistic dropped.";

/** The same setting, another agent or rung: model, N disclosure, B, K, magnitude and source agree. */
const sameSetting = (a: ArmKey, b: ArmKey) =>
  a.model === b.model &&
  a.announceN === b.announceN &&
  a.budget === b.budget &&
  a.charge === b.charge &&
  a.economic === b.economic &&
  a.magnitude === b.magnitude &&
  a.source === b.source;

/** The single-agent arm of the split arm's planner at this rung, if the report has one. */
const singleArm = (arms: readonly Arm[], split: Arm, rung: 'R1' | 'R3') =>
  arms.find((arm) => arm.key.builder === null && arm.key.rung === rung && sameSetting(arm.key, split.key));

/**
 * The split agent against the single agent at R3, per model (the planner's):
 * the allocation measures of the planner's claims beside the model's own
 * R3 builds (and its R1 claims, the framing the planner is given), and the
 * builder's script success and answers beside the single agent's. Paired on
 * the seeds both R3 arms played.
 */
export function splitTable(arms: readonly Arm[]): Table {
  const rows = arms
    .filter((arm) => arm.key.builder !== null && arm.key.rung === 'R3')
    .map((split): Cell[] => {
      const plain = singleArm(arms, split, 'R3');
      const r1 = singleArm(arms, split, 'R1');
      const paired = plain ? pairSeeds(plain.sessions, split.sessions) : null;
      const s = summarizeArm('R3', split.sessions);
      const p = plain ? summarizeArm('R3', plain.sessions) : null;
      const answered = (summary: typeof s | null) =>
        summary?.script ? `${summary.script.answeredCorrectly}/${summary.script.problemsShown}` : null;
      const difference = (name: 'firstSight' | 'firstSightHazard'): Cell =>
        paired && paired.a.length > 0 ? intervalOf(repooledDifference(name, paired.a, paired.b)) : null;
      return [
        split.key.model,
        split.key.builder,
        split.key.budget,
        split.sessions.length,
        paired?.a.length ?? null,
        r1 ? intervalOf(marginalEstimate('firstSight', r1.sessions)) : null,
        plain ? intervalOf(marginalEstimate('firstSight', plain.sessions)) : null,
        intervalOf(marginalEstimate('firstSight', split.sessions)),
        difference('firstSight'),
        plain ? intervalOf(marginalEstimate('firstSightHazard', plain.sessions)) : null,
        intervalOf(marginalEstimate('firstSightHazard', split.sessions)),
        difference('firstSightHazard'),
        p?.commitmentsPerSeed ?? null,
        s.commitmentsPerSeed,
        p?.script?.scriptSuccessRate ?? null,
        s.script?.scriptSuccessRate ?? null,
        answered(p),
        answered(s),
      ];
    });
  return {
    id: 'r3-split',
    title: 'R3: the split agent against the single agent',
    caption: `One row per split-agent arm: its planner claims or skips as at R1 and its builder writes and runs the scripts of the claimed types; unclaimed problems are given up. Model is the planner; single R3 is that model's own R3 arm at the same B, K, N disclosure and magnitude, and R1 its R1 arm (the framing the planner is given), where the report has them. First-sight (among commitments) and hazard are the planner's claims in the split arm and the written scripts in the single one; split − single is the paired difference of re-pooled ratios in points, on the seeds both R3 arms played (Paired seeds). Script success is the share of script runs returning the gold answer; answered correctly counts problems shown, a diagnostic only (R3 is not scored). ${BOOTSTRAP}`,
    columns: [
      { name: 'Model', format: 'text' },
      { name: 'Builder', format: 'text' },
      { name: 'B', format: 'integer' },
      { name: 'Seeds', format: 'integer' },
      { name: 'Paired seeds', format: 'integer' },
      { name: 'First-sight R1', format: 'percent' },
      { name: 'First-sight single R3', format: 'percent' },
      { name: 'First-sight split', format: 'percent' },
      { name: 'First-sight split−single', format: 'points' },
      { name: 'Hazard single R3', format: 'percent' },
      { name: 'Hazard split', format: 'percent' },
      { name: 'Hazard split−single', format: 'points' },
      { name: 'Commits/seed single R3', format: 'fixed' },
      { name: 'Commits/seed split', format: 'fixed' },
      { name: 'Script success single R3', format: 'percent' },
      { name: 'Script success split', format: 'percent' },
      { name: 'Answered correctly single R3', format: 'text' },
      { name: 'Answered correctly split', format: 'text' },
    ],
    rows,
  };
}

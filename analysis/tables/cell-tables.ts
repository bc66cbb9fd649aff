import { armLabel, varyingFields, type Arm } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { marginalEstimate } from '../stats/contrasts.js';
import { validity } from '../stats/decision-rules.js';
import { intervalOf } from './interval-cell.js';
import type { Table } from './table.js';

const BOOTSTRAP = 'Per-arm seed bootstrap: 10,000 resamples, RNG seed 0 (xoroshiro128+), percentile 95% intervals.';

/** Every cell with its per-arm intervals and validity (D.2). */
export function cellTable(arms: readonly Arm[]): Table {
  const varies = varyingFields(arms.map((arm) => arm.key));
  varies.delete('rung');
  return {
    id: 'cells',
    title: 'Per-cell estimates with intervals',
    caption: `First-sight among commitments, first-sight hazard (committed share of eligible first-occurrence turns) and Score (none at R3), pooled over seeds. ${BOOTSTRAP} A cell is invalid when more than 10% of the decision turns reached are unresolved.`,
    columns: [
      { name: 'Arm', format: 'text' },
      { name: 'Rung', format: 'text' },
      { name: 'Seeds', format: 'integer' },
      { name: 'First-sight', format: 'percent' },
      { name: 'Hazard', format: 'percent' },
      { name: 'Score', format: 'percent' },
      { name: 'Commits/seed', format: 'fixed' },
      { name: 'Items/stream', format: 'fixed' },
      { name: 'Unresolved', format: 'percent' },
      { name: 'Validity', format: 'text' },
    ],
    rows: arms.map((arm) => {
      const summary = summarizeArm(arm.key.rung, arm.sessions);
      return [
        armLabel(arm.key, varies),
        arm.key.rung,
        summary.seeds,
        intervalOf(marginalEstimate('firstSight', arm.sessions)),
        intervalOf(marginalEstimate('firstSightHazard', arm.sessions)),
        arm.key.rung === 'R3' ? null : intervalOf(marginalEstimate('score', arm.sessions)),
        summary.commitmentsPerSeed,
        summary.itemsPerStream,
        summary.unresolvedRate,
        validity(arm.sessions).valid ? 'valid' : 'INVALID',
      ];
    }),
  };
}

/** R3's commitment diagnostics (F.5, B.6): builds, reuse, refused cross-class runs, script success, raw answers. */
export function scriptTable(arms: readonly Arm[]): Table {
  const r3 = arms.filter((arm) => arm.key.rung === 'R3');
  const varies = varyingFields(r3.map((arm) => arm.key));
  return {
    id: 'r3-builds',
    title: 'R3: builds, reuse and script success',
    caption: `First-sight among script builds, with its per-arm interval; lateness in within-class occurrences; refused runs are cross-class run_script calls refused without executing (n_cross_class_run_refused); script success is the share of script runs (tests and reruns) returning the gold answer. ${BOOTSTRAP}`,
    columns: [
      { name: 'Arm', format: 'text' },
      { name: 'Builds', format: 'integer' },
      { name: 'First-sight builds', format: 'percent' },
      { name: 'Mean lateness', format: 'fixed' },
      { name: 'Reuse runs', format: 'integer' },
      { name: 'Refused runs', format: 'integer' },
      { name: 'Script success', format: 'percent' },
      { name: 'Raw answers', format: 'integer' },
      { name: 'Raw accuracy', format: 'percent' },
      { name: 'Zero-build seeds', format: 'text' },
    ],
    rows: r3.map((arm) => {
      const summary = summarizeArm('R3', arm.sessions);
      const s = summary.script;
      return [
        armLabel(arm.key, varies),
        s?.builds ?? null,
        intervalOf(marginalEstimate('firstSight', arm.sessions)),
        summary.meanLateness,
        s?.reuseRuns ?? null,
        s?.crossClassRunsRefused ?? null,
        s?.scriptSuccessRate ?? null,
        s?.rawAnswers ?? null,
        s?.rawAccuracy ?? null,
        s ? `${s.zeroBuildSessions}/${s.sessions}` : null,
      ];
    }),
  };
}

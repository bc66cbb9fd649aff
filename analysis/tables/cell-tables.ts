import { agentName } from '../../core/sweep/session-spec.js';
import { armLabel, varyingFields, type Arm } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { marginalEstimate } from '../stats/contrasts.js';
import { validity } from '../stats/decision-rules.js';
import { intervalOf } from './interval-cell.js';
import type { Cell, Column, Table } from './table.js';

const ONLINE =
  "Online Score is Σ net / Σ the net of policy/optimal (the Bayes-optimal online policy under the streams' own generator, which knows the recipe but not the stream) on the same streams at the same T, B and K, with its per-arm interval (none at R3); online optimum is that net summed over seeds, online regret its mean per seed minus the arm's (negative where the arm did better on its streams).";

const BOOTSTRAP =
  "Per-arm seed bootstrap: the resamples are the rows of numpy's default_rng(0) (PCG64) integers(0, n, size=(10000, n)) matrix over the n seeds in ascending order; linear-percentile 95% intervals, resamples with an undefined statistic dropped.";

/** Where an arm's sessions came from: the authors' arm path of an import, else the run's name. */
/** The authors' arm path of an imported arm; else the run, with the arm of a sweep of several (`paper_x · economic`). */
export function sourceOf(arm: Arm): string {
  if (arm.key.source !== null) return arm.key.source;
  const first = arm.loaded[0];
  return first?.spec.arm !== undefined ? `${first.runName} · ${first.spec.arm}` : (first?.runName ?? '');
}

/** Every cell (arm) with its settings, its per-arm intervals and validity (D.2, D.3). */
export function cellTable(arms: readonly Arm[]): Table {
  return {
    id: 'cells',
    title: 'Per-cell estimates with intervals',
    caption: `One row per arm. Source: the authors' arm path for an imported arm, else the run (and its arm, in a sweep of several). Model: a split agent's planner and builder (R3: its commitments are the planner's claims). First-sight among commitments, first-sight hazard (committed share of eligible first-occurrence turns, unresolved turns included as passes) and Score (none at R3), pooled over seeds; at R3 a commitment is a hidden class with a script authored on it. ${BOOTSTRAP} Full-budget seeds spent all B commitments; collected and optimum are sums over seeds (Score is their ratio at K = 0). ${ONLINE} Resolved turns are the decision turns reached that gave a valid decision; malformed calls had arguments that were not valid (a claim without code), unknown calls named a tool the rung does not have. A cell is invalid when more than 10% of the decision turns reached are unresolved.`,
    columns: [
      { name: 'Source', format: 'text' },
      { name: 'Model', format: 'text' },
      { name: 'Rung', format: 'text' },
      { name: 'Reskin', format: 'text' },
      { name: 'N disclosed', format: 'text' },
      { name: 'B', format: 'integer' },
      { name: 'K', format: 'fixed' },
      { name: 'Magnitude', format: 'integer' },
      { name: 'Seeds', format: 'integer' },
      { name: 'First-sight', format: 'percent' },
      { name: 'Hazard', format: 'percent' },
      { name: 'Score', format: 'percent' },
      { name: 'Online Score', format: 'percent' },
      { name: 'Commits/seed', format: 'fixed' },
      { name: 'Zero-commit seeds', format: 'integer' },
      { name: 'Full-budget seeds', format: 'integer' },
      { name: 'Lateness', format: 'fixed' },
      { name: 'Items/stream', format: 'fixed' },
      { name: 'Collected', format: 'integer' },
      { name: 'Optimum', format: 'integer' },
      { name: 'Online optimum', format: 'fixed' },
      { name: 'Online regret', format: 'fixed' },
      { name: 'Unresolved', format: 'percent' },
      { name: 'Resolved turns', format: 'text' },
      { name: 'Malformed calls', format: 'integer' },
      { name: 'Unknown calls', format: 'integer' },
      { name: 'Validity', format: 'text' },
    ],
    rows: arms.map((arm) => {
      const summary = summarizeArm(arm.key.rung, arm.sessions);
      const { model, builder, rung, reskin, announceN, budget, charge, magnitude } = arm.key;
      const cell = validity(arm.sessions);
      const total = (pick: (m: (typeof arm.sessions)[number]['metrics']) => number) =>
        arm.sessions.reduce((sum, session) => sum + pick(session.metrics), 0);
      return [
        sourceOf(arm),
        agentName(model, builder),
        rung,
        reskin,
        announceN ? 'yes' : 'no',
        budget,
        charge,
        magnitude,
        summary.seeds,
        intervalOf(marginalEstimate('firstSight', arm.sessions)),
        intervalOf(marginalEstimate('firstSightHazard', arm.sessions)),
        arm.key.rung === 'R3' ? null : intervalOf(marginalEstimate('score', arm.sessions)),
        summary.online ? intervalOf(marginalEstimate('onlineScore', arm.sessions)) : null,
        summary.commitmentsPerSeed,
        summary.zeroCommitSeeds,
        arm.sessions.filter((session) => session.metrics.commitments === budget).length,
        summary.meanLateness,
        summary.itemsPerStream,
        total((m) => m.utility),
        total((m) => m.optimum),
        summary.online ? summary.online.meanOptimum * summary.online.sessions : null,
        summary.online?.meanRegret ?? null,
        summary.unresolvedRate,
        `${cell.reached - cell.unresolved}/${cell.reached}`,
        ...callFaults(arm),
        cell.valid ? 'valid' : 'INVALID',
      ];
    }),
  };
}

/**
 * Calls with arguments that were not valid, and calls to a tool the rung does
 * not have: at R3 the loop's counts, at a decision rung the turns the parser
 * read so (null where a summary predates the count).
 */
function callFaults(arm: Arm): [number | null, number | null] {
  if (arm.key.rung === 'R3') {
    const script = summarizeArm('R3', arm.sessions).script;
    return [script?.malformedCalls ?? null, script?.unknownCalls ?? null];
  }
  const failures = arm.loaded.flatMap((session) => session.summary.decisions.map((decision) => decision.failure));
  return [failures.filter((f) => f === 'malformed-arguments').length, failures.filter((f) => f === 'unknown-function').length];
}

/** The remaining estimands per cell (C.1, E, F): collection, utilization, lateness, keep rates, net, optimum and regret. */
export function cellDiagnosticsTable(arms: readonly Arm[]): Table {
  const varies = varyingFields(arms.map((arm) => arm.key));
  varies.delete('rung');
  return {
    id: 'cell-diagnostics',
    title: 'Per-cell diagnostics',
    caption:
      "Items per stream (credited), budget utilization (commitments / B), mean lateness (within-class occurrences before the commitment), P(keep | first and second occurrence) over eligible turns, and mean net utility, exact hindsight net optimum and regret per seed; online optimum and regret per seed are against policy/optimal's net on the same streams (none at R3).",
    columns: [
      { name: 'Arm', format: 'text' },
      { name: 'Rung', format: 'text' },
      { name: 'Items/stream', format: 'fixed' },
      { name: 'Utilization', format: 'percent' },
      { name: 'Lateness', format: 'fixed' },
      { name: 'P(keep | 1st)', format: 'percent' },
      { name: 'P(keep | 2nd)', format: 'percent' },
      { name: 'Net', format: 'fixed' },
      { name: 'Optimum', format: 'fixed' },
      { name: 'Regret', format: 'fixed' },
      { name: 'Online optimum', format: 'fixed' },
      { name: 'Online regret', format: 'fixed' },
    ],
    rows: arms.map((arm) => {
      const s = summarizeArm(arm.key.rung, arm.sessions);
      return [
        armLabel(arm.key, varies),
        arm.key.rung,
        s.itemsPerStream,
        s.budgetUtilization,
        s.meanLateness,
        s.keepAtOccurrence1.rate,
        s.keepAtOccurrence2.rate,
        s.meanNet,
        s.meanOptimum,
        s.meanRegret,
        s.online?.meanOptimum ?? null,
        s.online?.meanRegret ?? null,
      ];
    }),
  };
}

/** Every session's own estimands, one row per seed: the per-seed view the pooled tables summarize. */
export function perSeedTable(arms: readonly Arm[]): Table {
  return {
    id: 'per-seed',
    title: 'Per-seed estimands',
    caption:
      "One row per session. First-sight and lateness are undefined (empty) for a session without commitments; hazard for one without an eligible first-occurrence turn. Online optimum is policy/optimal's net on the session's stream, online regret that minus the session's net.",
    columns: [
      { name: 'Model', format: 'text' },
      { name: 'Rung', format: 'text' },
      { name: 'Reskin', format: 'text' },
      { name: 'N disclosed', format: 'text' },
      { name: 'B', format: 'integer' },
      { name: 'K', format: 'fixed' },
      { name: 'Magnitude', format: 'integer' },
      { name: 'Seed', format: 'integer' },
      { name: 'Commitments', format: 'integer' },
      { name: 'First-sight', format: 'percent' },
      { name: 'Hazard', format: 'percent' },
      { name: 'Lateness', format: 'fixed' },
      { name: 'Utility', format: 'integer' },
      { name: 'Net', format: 'fixed' },
      { name: 'Optimum', format: 'fixed' },
      { name: 'Regret', format: 'fixed' },
      { name: 'Online optimum', format: 'fixed' },
      { name: 'Online regret', format: 'fixed' },
      { name: 'Unresolved', format: 'integer' },
    ],
    rows: arms.flatMap((arm) =>
      arm.sessions.map(({ seed, metrics: m, online }) => [
        agentName(arm.key.model, arm.key.builder),
        arm.key.rung,
        arm.key.reskin,
        arm.key.announceN ? 'yes' : 'no',
        arm.key.budget,
        arm.key.charge,
        arm.key.magnitude,
        seed,
        m.commitments,
        m.firstSightRate,
        m.firstSightHazard,
        m.meanLateness,
        m.utility,
        m.net,
        m.optimum,
        m.regret,
        online?.optimum ?? null,
        online?.regret ?? null,
        m.unresolved,
      ]),
    ),
  };
}

/** R3's commitment diagnostics (F.5, B.6): builds, reuse, refused cross-class runs, script success, raw answers. */
export function scriptTable(arms: readonly Arm[]): Table {
  const r3 = arms.filter((arm) => arm.key.rung === 'R3');
  const varies = varyingFields(r3.map((arm) => arm.key));
  const ended = (arm: Arm, termination: string) => arm.loaded.filter((s) => s.summary.termination === termination).length;
  const rows: Cell[][] = r3.map((arm) => {
    const summary = summarizeArm('R3', arm.sessions);
    const s = summary.script;
    const commitments = arm.sessions.reduce((sum, session) => sum + session.metrics.commitments, 0);
    const firstSight = arm.sessions.reduce((sum, session) => sum + session.metrics.firstSightCommitments, 0);
    return [
      armLabel(arm.key, varies),
      arm.sessions.length,
      s?.builds ?? null,
      commitments,
      `${firstSight}/${commitments}`,
      intervalOf(marginalEstimate('firstSight', arm.sessions)),
      summary.meanLateness,
      s?.reuseRuns ?? null,
      s?.runAttempts ?? null,
      s?.crossClassRunsRefused ?? null,
      s?.refusedRunRate ?? null,
      s?.scriptSuccessRate ?? null,
      s?.rawAnswers ?? null,
      s?.rawAccuracy ?? null,
      s ? `${s.zeroBuildSessions}/${s.sessions}` : null,
      s?.callsPerProblem ?? null,
      s?.writesRefused ?? null,
      s?.malformedCalls ?? null,
      s?.unknownCalls ?? null,
      s?.forcedAdvances ?? null,
      ended(arm, 'budget-exhausted'),
      ended(arm, 'token-cap'),
      ended(arm, 'stream-end'),
      s ? `${s.answeredCorrectly}/${s.problemsShown}` : null,
    ];
  });
  return {
    id: 'r3-builds',
    title: 'R3: builds, reuse and script success',
    caption: `Scripts written counts every write (rewrites included); the commitments (classes built) are the hidden classes with a script authored on them, and first-sight is their share built at the class's first occurrence, with its per-arm interval; lateness in within-class occurrences; run attempts are run_script calls on an existing script, refused ones included, and refused runs the cross-class calls refused without executing (n_cross_class_run_refused), with the total over the class-bound arms (ours, and the authors' _class-bound arms) of each magnitude; script success is the share of script runs (tests and reruns) returning the gold answer; refused writes came with no writes left; malformed calls had arguments that were not valid, unknown calls named no tool of the loop; a forced advance moved on after two replies without a tool call; ended counts the seeds that stopped on the write budget, the token cap, or at the end of the stream; answered correctly counts problems shown, a diagnostic only (the paper gives R3 no Score). For a split agent (the arm names its planner and builder) the classes built, first-sight and lateness are its planner's claims, the rest its builder's work; problems it did not claim were given up. ${BOOTSTRAP}`,
    columns: R3_COLUMNS,
    rows: [...rows, ...refusalTotals(r3)],
  };
}

const R3_COLUMNS: readonly Column[] = [
  { name: 'Arm', format: 'text' },
  { name: 'Seeds', format: 'integer' },
  { name: 'Scripts written', format: 'integer' },
  { name: 'Classes built', format: 'integer' },
  { name: 'First-sight builds', format: 'text' },
  { name: 'First-sight', format: 'percent' },
  { name: 'Mean lateness', format: 'fixed' },
  { name: 'Reuse runs', format: 'integer' },
  { name: 'Run attempts', format: 'integer' },
  { name: 'Refused runs', format: 'integer' },
  { name: 'Refused share', format: 'percent' },
  { name: 'Script success', format: 'percent' },
  { name: 'Raw answers', format: 'integer' },
  { name: 'Raw accuracy', format: 'percent' },
  { name: 'Zero-build seeds', format: 'text' },
  { name: 'Calls per problem', format: 'fixed' },
  { name: 'Refused writes', format: 'integer' },
  { name: 'Malformed calls', format: 'integer' },
  { name: 'Unknown calls', format: 'integer' },
  { name: 'Forced advances', format: 'integer' },
  { name: 'Ended on write budget', format: 'integer' },
  { name: 'Ended on token cap', format: 'integer' },
  { name: 'Ended at stream end', format: 'integer' },
  { name: 'Answered correctly', format: 'text' },
];

/** An arm whose scripts were bound to their class (cross-class runs refused): ours, and the authors' `_class-bound-*` arms. */
const isClassBound = (arm: Arm) => arm.key.source === null || arm.key.source.includes('class-bound');

/** C.5: run attempts and cross-class refusals over every class-bound arm, per magnitude (the paper's 22 of 478 at 100). */
function refusalTotals(r3: readonly Arm[]): Cell[][] {
  const bound = r3.filter(isClassBound);
  return [...new Set(bound.map((arm) => arm.key.magnitude))]
    .sort((a, b) => a - b)
    .map((magnitude) => {
      const scripts = bound
        .filter((arm) => arm.key.magnitude === magnitude)
        .flatMap((arm) => summarizeArm('R3', arm.sessions).script ?? []);
      const known = scripts.every((s) => s.runAttempts !== null);
      const attempts = known ? scripts.reduce((sum, s) => sum + (s.runAttempts ?? 0), 0) : null;
      const refused = scripts.reduce((sum, s) => sum + s.crossClassRunsRefused, 0);
      const total: Record<string, Cell> = {
        Arm: `all class-bound arms · magnitude ${magnitude}`,
        'Run attempts': attempts,
        'Refused runs': refused,
        'Refused share': attempts ? refused / attempts : null,
      };
      return R3_COLUMNS.map((column) => total[column.name] ?? null);
    });
}

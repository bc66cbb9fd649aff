import { armLabel, varyingFields } from '../arms.js';
import { LADDER_RUNGS, type Ladder, type LadderRung } from '../ladders.js';
import { pairSeeds } from '../stats/seed-session.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { marginalEstimate, repooledDifference } from '../stats/contrasts.js';
import { localize, suppressionReplication } from '../stats/decision-rules.js';
import type { SeedSession } from '../stats/seed-session.js';
import { intervalOf } from './interval-cell.js';
import type { Cell, Table } from './table.js';

const BOOTSTRAP =
  "Seed bootstrap: the resamples are the rows of numpy's default_rng(0) (PCG64) integers(0, n, size=(10000, n)) matrix over the n seeds in ascending order, the same rows for both arms of a contrast; linear-percentile 95% intervals, resamples with an undefined statistic dropped.";

function labels(list: readonly Ladder[]): string[] {
  const keys = list.map((ladder) => ({
    ...ladder.key,
    source: null,
    builder: null,
    rung: 'R0' as const,
    reskin: null,
    charge: 0,
    economic: false,
  }));
  const varies = varyingFields(keys);
  return keys.map((key) => armLabel(key, varies));
}

const sessionsAt = (ladder: Ladder, rung: LadderRung): readonly SeedSession[] => ladder.rungs[rung]?.sessions ?? [];

/** Table 1: pooled first-sight commitment per rung and the localization rule's failure point. */
export function framingLadderTable(list: readonly Ladder[]): Table {
  const names = labels(list);
  return {
    id: 'framing-ladder',
    title: 'First-sight commitment across the framing ladder',
    caption:
      'Pooled first-sight commitment among realized commitments per rung (R3: among script builds), and the failure point by two rules. 30-point rule: the earliest adjacent rung whose pooled first-sight rises by at least 30 points (the preregistered localization rule of A.2). Suppression: the earliest rung after R0 that meets the suppression criterion of B.5 (at least 80% first-sight, a rise of at least 30 points over R0, and a paired interval above zero); the paper\'s Table 1 prints this one (for GPT-5.6 Sol the 30-point rule says R2, the suppression criterion R3). "none" when no rung qualifies.',
    columns: [
      { name: 'Model', format: 'text' },
      ...LADDER_RUNGS.map((rung) => ({ name: rung, format: 'percent' as const })),
      { name: 'Failure point (30-point rule)', format: 'text' },
      { name: 'Failure point (suppression)', format: 'text' },
    ],
    rows: list.map((ladder, i) => {
      const rates: Cell[] = LADDER_RUNGS.map((rung) =>
        ladder.rungs[rung] ? summarizeArm(rung, sessionsAt(ladder, rung)).firstSight : null,
      );
      const complete = LADDER_RUNGS.every((rung) => ladder.rungs[rung]);
      const trigger = complete
        ? (localize({
            R0: sessionsAt(ladder, 'R0'),
            R1: sessionsAt(ladder, 'R1'),
            R2: sessionsAt(ladder, 'R2'),
            R3: sessionsAt(ladder, 'R3'),
          }).trigger ?? 'none')
        : 'incomplete ladder';
      return [names[i] ?? '', ...rates, trigger, complete ? suppressionPoint(ladder) : 'incomplete ladder'];
    }),
  };
}

/** The earliest rung after R0 where B.5's suppression criterion is met, paired on the seeds both rungs ran. */
function suppressionPoint(ladder: Ladder): string {
  const r0 = sessionsAt(ladder, 'R0');
  const met = (['R1', 'R2', 'R3'] as const).find((rung) => {
    const paired = pairSeeds(r0, sessionsAt(ladder, rung));
    return paired.a.length > 0 && suppressionReplication(paired.a, paired.b).passed;
  });
  return met ?? 'none';
}

const STEPS: readonly (readonly [LadderRung, LadderRung])[] = [
  ['R0', 'R1'],
  ['R1', 'R2'],
  ['R2', 'R3'],
  ['R0', 'R3'],
];

/** Paired within-seed differences of re-pooled first-sight between rungs (D.1). */
export function pairedLadderTable(list: readonly Ladder[]): Table {
  const names = labels(list);
  return {
    id: 'paired-ladder-differences',
    title: 'Paired within-seed first-sight differences',
    caption: `Later rung minus earlier, in percentage points: the difference of re-pooled first-sight-among-commitments ratios, seeds resampled as clusters on the seeds both rungs have (zero-commit seeds retained). ${BOOTSTRAP}`,
    columns: [{ name: 'Model', format: 'text' }, ...STEPS.map(([from, to]) => ({ name: `${to}−${from}`, format: 'points' as const }))],
    rows: list.map((ladder, i) => [
      names[i] ?? '',
      ...STEPS.map(([from, to]): Cell => {
        if (!ladder.rungs[from] || !ladder.rungs[to]) return null;
        const paired = pairSeeds(sessionsAt(ladder, from), sessionsAt(ladder, to));
        return paired.a.length > 0 ? intervalOf(repooledDifference('firstSight', paired.a, paired.b)) : null;
      }),
    ]),
  };
}

/** Zero-commit incidence and mean commitments per seed per rung (D.3). */
export function zeroCommitTable(list: readonly Ladder[]): Table {
  const names = labels(list);
  return {
    id: 'zero-commit',
    title: 'Zero-commit incidence and commitments per seed',
    caption: `Seeds with no commitment (R3: no script written), out of the seeds run, and mean commitments per seed (R3: distinct classes with a script written), then the paired R2→R3 changes of both (D.3: zero-commit incidence in points, commitments per seed), means of seed differences on the seeds both rungs ran. ${BOOTSTRAP}`,
    columns: [
      { name: 'Model', format: 'text' },
      ...LADDER_RUNGS.map((rung) => ({ name: `zero-commit ${rung}`, format: 'text' as const })),
      ...LADDER_RUNGS.map((rung) => ({ name: `commits/seed ${rung}`, format: 'fixed' as const })),
      { name: 'zero-commit R3−R2', format: 'points' },
      { name: 'commits/seed R3−R2', format: 'fixed' },
    ],
    rows: list.map((ladder, i) => {
      const summaries = LADDER_RUNGS.map((rung) => (ladder.rungs[rung] ? summarizeArm(rung, sessionsAt(ladder, rung)) : null));
      const paired = ladder.rungs.R2 && ladder.rungs.R3 ? pairSeeds(sessionsAt(ladder, 'R2'), sessionsAt(ladder, 'R3')) : null;
      const change = (name: 'zeroCommitIncidence' | 'commitmentsPerSeed'): Cell =>
        paired && paired.a.length > 0 ? intervalOf(repooledDifference(name, paired.a, paired.b)) : null;
      return [
        names[i] ?? '',
        ...summaries.map((s) => (s ? `${s.zeroCommitSeeds}/${s.seeds}` : null)),
        ...summaries.map((s) => s?.commitmentsPerSeed ?? null),
        change('zeroCommitIncidence'),
        change('commitmentsPerSeed'),
      ];
    }),
  };
}

/** Score (pooled net over the hindsight optimum) per rung, R0–R2 only: the paper does not score R3. */
export function scoreTable(list: readonly Ladder[]): Table {
  const names = labels(list);
  const rungs = ['R0', 'R1', 'R2'] as const;
  return {
    id: 'score',
    title: 'Score per rung',
    caption: `Score = Σ utility / Σ hindsight optimum over seeds, with per-arm intervals. R3 is not scored: its credit mixes allocation with script-writing ability. ${BOOTSTRAP}`,
    columns: [{ name: 'Model', format: 'text' }, ...rungs.map((rung) => ({ name: rung, format: 'percent' as const }))],
    rows: list.map((ladder, i) => [
      names[i] ?? '',
      ...rungs.map((rung): Cell => {
        const arm = ladder.scored[rung];
        return arm ? intervalOf(marginalEstimate('score', arm.sessions)) : null;
      }),
    ]),
  };
}

/**
 * Where each model stands against the true online optimum (issue 24): per
 * scored rung, the Score against the hindsight optimum beside the online Score
 * (Σ net over policy/optimal's Σ net on the same streams) and the online regret.
 */
export function onlineScoreTable(list: readonly Ladder[]): Table {
  const names = labels(list);
  const rungs = ['R0', 'R1', 'R2'] as const;
  return {
    id: 'online-score',
    title: 'Score against the online optimum per rung',
    caption: `Score = Σ net / Σ hindsight optimum (which no online agent can reach); online Score = Σ net / Σ net of policy/optimal, the Bayes-optimal online policy under the streams' own generator (it knows the recipe — 8 classes, 3 hot, a trap among the first B items — and T, B, K, not the stream), played on the same streams; online regret = policy/optimal's net minus the model's, mean per seed (negative where the model did better on its streams). An online Score above 100% is luck on these streams, not a better policy. Arms as in the Score table; R3 is not scored. ${BOOTSTRAP}`,
    columns: [
      { name: 'Model', format: 'text' },
      ...rungs.flatMap((rung) => [
        { name: `Score ${rung}`, format: 'percent' as const },
        { name: `Online Score ${rung}`, format: 'percent' as const },
        { name: `Online regret ${rung}`, format: 'fixed' as const },
      ]),
    ],
    rows: list.map((ladder, i) => [
      names[i] ?? '',
      ...rungs.flatMap((rung): Cell[] => {
        const arm = ladder.scored[rung];
        const online = arm ? summarizeArm(rung, arm.sessions).online : null;
        if (!arm) return [null, null, null];
        return [
          intervalOf(marginalEstimate('score', arm.sessions)),
          online ? intervalOf(marginalEstimate('onlineScore', arm.sessions)) : null,
          online ? intervalOf(marginalEstimate('onlineRegret', arm.sessions)) : null,
        ];
      }),
    ]),
  };
}

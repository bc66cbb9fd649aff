import type { Arm } from '../arms.js';
import type { Comparator } from '../bayes-comparator.js';
import type { Ladder } from '../ladders.js';
import { pairSeeds } from '../stats/seed-session.js';
import { competenceGate, suppressionReplication, type Criterion } from '../stats/decision-rules.js';
import type { SeedSession } from '../stats/seed-session.js';
import type { Table } from './table.js';

type Unit = 'count' | 'fixed' | 'percent' | 'points';
const UNITS: Readonly<Record<Unit, (value: number) => string>> = {
  count: String,
  fixed: (value) => value.toFixed(2),
  percent: (value) => `${(100 * value).toFixed(1)}%`,
  points: (value) => `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)} points`,
};
const mark = (c: Criterion, unit: Unit) =>
  c.status === 'not-evaluated' ? 'not evaluated' : `${c.value === null ? '–' : UNITS[unit](c.value)} ${c.status === 'pass' ? '✓' : '✗'}`;

function suppression(r0: readonly SeedSession[] | undefined, treated: readonly SeedSession[] | undefined): string {
  if (!r0 || !treated) return '–';
  const paired = pairSeeds(r0, treated);
  const result = suppressionReplication(paired.a, paired.b);
  const interval = result.paired.interval ? ` [${result.paired.interval.map((v) => (100 * v).toFixed(1)).join(', ')}]` : '';
  return `${result.passed ? 'met' : 'not met'}: ${mark(result.treatedFirstSight, 'percent')}, rise ${mark(result.increase, 'points')}, paired${interval}`;
}

/**
 * B.5's locked abstract competence gate on each model's R0 arm (against the
 * exact Bayesian comparator on the same streams, where N was disclosed:
 * `comparators`, from analysis/bayes-comparator.ts) and the preregistered
 * suppression replication at R2 and R3.
 */
export function decisionRulesTable(list: readonly Ladder[], comparators: ReadonlyMap<Arm, Comparator>): Table {
  const rows = list.flatMap((ladder) => {
    const r0 = ladder.rungs.R0?.sessions;
    if (!r0) return [];
    const panel = [...new Set(Object.values(ladder.rungs).flatMap((arm) => arm.sessions.map((s) => s.seed)))];
    const gate = competenceGate(panel, r0, ladder.rungs.R0 && comparators.get(ladder.rungs.R0));
    return [
      [
        ladder.key.model,
        mark(gate.complete, 'count').replace(' ', `/${panel.length} `),
        mark(gate.commitmentsPerSeed, 'fixed'),
        mark(gate.firstSight, 'percent'),
        mark(gate.comparator, 'fixed'),
        gate.passed ? 'passed' : 'failed',
        suppression(r0, ladder.rungs.R2?.sessions),
        suppression(r0, ladder.rungs.R3?.sessions),
      ],
    ];
  });
  return {
    id: 'decision-rules',
    title: 'Competence gate and suppression replication',
    caption:
      'Abstract competence gate on R0: every panel seed complete, at least 2.5 commitments per seed, at most 50% first-sight among commitments, and R0 collection at least 90% of what the exact same-information Bayes-optimal online policy under a symmetric Dirichlet(1) prior collects on the same streams (policy/bayes; a ratio of sums; evaluated where N was disclosed, as the comparator knows it). Suppression replication at R2 (and R3): at least 80% first-sight among commitments, a pooled rise of at least 30 points over R0, and a positive lower end of the paired seed-bootstrap interval (mean of seed differences, 10,000 resamples, RNG seed 0).',
    columns: [
      { name: 'Model', format: 'text' },
      { name: 'Complete', format: 'text' },
      { name: 'Commits/seed', format: 'text' },
      { name: 'First-sight', format: 'text' },
      { name: 'vs comparator', format: 'text' },
      { name: 'Gate', format: 'text' },
      { name: 'Suppression at R2', format: 'text' },
      { name: 'Suppression at R3', format: 'text' },
    ],
    rows,
  };
}

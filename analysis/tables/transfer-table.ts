import { InputError } from '../../core/errors.js';
import type { Arm } from '../arms.js';
import { commonSeeds } from '../ladders.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { repooledDifference, seedMeanDifference } from '../stats/contrasts.js';
import { poolPerSeed } from '../stats/pool-per-seed.js';
import type { SeedSession } from '../stats/seed-session.js';
import { intervalOf } from './interval-cell.js';
import type { Cell, Table } from './table.js';

interface Panel {
  readonly name: string;
  readonly a: readonly SeedSession[];
  readonly b: readonly SeedSession[];
}

const PANEL_ORDER = ['R0', 'reskins', 'probe', 'R1', 'R2', 'R3'];

const percent = (value: number | null) => (value === null ? '–' : `${(100 * value).toFixed(1)}%`);
const firstSightCell = (arm: readonly SeedSession[]) => {
  const m = summarizeArm('R0', arm);
  return m.firstSight === null ? '–' : `${percent(m.firstSight)} (${(m.meanLateness ?? 0).toFixed(2)})`;
};

/** The framings both models ran on the same settings, paired on their common seeds; reskins also pooled. */
function panels(arms: readonly Arm[], a: string, b: string): Panel[] {
  const framing = (arm: Arm) => JSON.stringify({ ...arm.key, model: '' });
  const found: Panel[] = [];
  const reskins: { a: SeedSession[]; b: SeedSession[] } = { a: [], b: [] };
  for (const left of arms.filter((arm) => arm.key.model === a)) {
    const right = arms.find((arm) => arm.key.model === b && framing(arm) === framing(left));
    if (!right) continue;
    const paired = commonSeeds(left.sessions, right.sessions);
    const { rung, reskin, budget, charge } = left.key;
    const setting = budget !== 3 || charge !== 0 ? ` · B${budget} K${charge}` : '';
    found.push({ name: `${rung}${reskin && reskin !== 'ball' ? ` · ${reskin}` : ''}${setting}`, ...paired });
    if (rung === 'R0' && reskin !== 'ball' && !setting) {
      reskins.a.push(...paired.a);
      reskins.b.push(...paired.b);
    }
  }
  if (new Set(reskins.a.map((s) => s.seed)).size < reskins.a.length)
    found.push({ name: 'reskins (pooled)', a: poolPerSeed(reskins.a), b: poolPerSeed(reskins.b) });
  const rank = (p: Panel) =>
    PANEL_ORDER.findIndex((prefix) => p.name.startsWith(prefix) || (prefix === 'reskins' && p.name.startsWith('R0 ·')));
  return found.sort((x, y) => rank(x) - rank(y));
}

/**
 * Two arms — models, or checkpoints of one model — on paired seeds at every
 * framing both ran: the transfer ladder of Appendix F. Per panel, each arm's
 * pooled first-sight among commitments (mean lateness) and B − A as the
 * difference of re-pooled ratios with seeds resampled as clusters; then P(keep)
 * at the first and second occurrence and items per stream on the abstract urn.
 */
export function transferTable(arms: readonly Arm[], a: string, b: string): Table {
  const list = panels(arms, a, b);
  if (list.length === 0) throw new InputError(`compare: no framing has sessions of both ${a} and ${b}`);
  const rows: Cell[][] = list.map((panel) => [
    panel.name,
    panel.a.length,
    firstSightCell(panel.a),
    firstSightCell(panel.b),
    panel.a.length > 0 ? intervalOf(repooledDifference('firstSight', panel.a, panel.b)) : null,
  ]);
  const urn = list.find((panel) => panel.name === 'R0');
  if (urn) {
    const keep = (arm: readonly SeedSession[], occurrence: 1 | 2) => {
      const tally = summarizeArm('R0', arm)[occurrence === 1 ? 'keepAtOccurrence1' : 'keepAtOccurrence2'];
      return `${percent(tally.rate)} (${tally.keeps}/${tally.eligible})`;
    };
    rows.push(['P(keep), occurrence 1 (R0)', urn.a.length, keep(urn.a, 1), keep(urn.b, 1), null]);
    rows.push(['P(keep), occurrence 2 (R0)', urn.a.length, keep(urn.a, 2), keep(urn.b, 2), null]);
    const items = (arm: readonly SeedSession[]) => summarizeArm('R0', arm).itemsPerStream.toFixed(1);
    const difference = seedMeanDifference('itemsPerStream', urn.a, urn.b);
    const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
    const change =
      difference.estimate === null
        ? '–'
        : `${signed(difference.estimate)}${difference.interval ? ` [${difference.interval.map(signed).join(', ')}]` : ''}`;
    rows.push(['Items/stream (R0)', urn.a.length, items(urn.a), items(urn.b), change]);
  }
  return {
    id: 'transfer',
    title: `${b} against ${a}`,
    caption:
      'First-sight commitment pooled over realized commitments (parentheses: mean lateness), on the seeds both arms ran; B − A in points is the difference of re-pooled ratios with seeds resampled as clusters (10,000 resamples, RNG seed 0, percentile 95% intervals). Occurrence rows give keeps over eligible turns; items per stream give the mean of per-seed differences, in items.',
    columns: [
      { name: 'Panel', format: 'text' },
      { name: 'Seeds', format: 'integer' },
      { name: a, format: 'text' },
      { name: b, format: 'text' },
      { name: 'B − A [95% CI]', format: 'points' },
    ],
    rows,
  };
}

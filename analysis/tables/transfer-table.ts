import { InputError } from '../../core/errors.js';
import type { Arm } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { repooledDifference, seedMeanDifference } from '../stats/contrasts.js';
import { validity } from '../stats/decision-rules.js';
import type { SeedSession } from '../stats/seed-session.js';
import { transferPanels } from '../transfer-panels.js';
import { intervalOf } from './interval-cell.js';
import { idPart, type Cell, type Table } from './table.js';

const percent = (value: number | null) => (value === null ? '–' : `${(100 * value).toFixed(1)}%`);
const firstSightCell = (arm: readonly SeedSession[]) => {
  if (arm.length === 0) return '–';
  const m = summarizeArm('R0', arm);
  return m.firstSight === null ? '–' : `${percent(m.firstSight)} (${(m.meanLateness ?? 0).toFixed(2)})`;
};

/**
 * The transfer ladder of Appendix F for one model, or for two — models, or
 * checkpoints of one model — on paired seeds at every framing both ran. Per
 * panel, each arm's pooled first-sight among commitments (mean lateness), and
 * with two arms B − A as the difference of re-pooled ratios with seeds
 * resampled as clusters; then P(keep) at the first and second occurrence and
 * items per stream on the abstract urn.
 */
export function transferTable(arms: readonly Arm[], a: string, b?: string): Table {
  const list = transferPanels(arms, a, b);
  if (list.length === 0)
    throw new InputError(b === undefined ? `compare: no sessions of ${a}` : `compare: no framing has sessions of both ${a} and ${b}`);
  const two = b !== undefined;
  const row = (name: string, seeds: number, left: string, right: string, change: Cell): Cell[] =>
    two ? [name, seeds, left, right, change] : [name, seeds, left];
  const rows: Cell[][] = list.map((panel) =>
    row(
      panel.name,
      panel.a.length,
      firstSightCell(panel.a),
      firstSightCell(panel.b),
      two && panel.a.length > 0 ? intervalOf(repooledDifference('firstSight', panel.a, panel.b)) : null,
    ),
  );
  const urn = list.find((panel) => panel.name === 'R0');
  if (urn) {
    const keep = (arm: readonly SeedSession[], occurrence: 1 | 2) => {
      if (arm.length === 0) return '–';
      const tally = summarizeArm('R0', arm)[occurrence === 1 ? 'keepAtOccurrence1' : 'keepAtOccurrence2'];
      return `${percent(tally.rate)} (${tally.keeps}/${tally.eligible})`;
    };
    rows.push(row('P(keep), occurrence 1 (R0)', urn.a.length, keep(urn.a, 1), keep(urn.b, 1), null));
    rows.push(row('P(keep), occurrence 2 (R0)', urn.a.length, keep(urn.a, 2), keep(urn.b, 2), null));
    const items = (arm: readonly SeedSession[]) => (arm.length === 0 ? '–' : summarizeArm('R0', arm).itemsPerStream.toFixed(1));
    let change = '–';
    if (two) {
      const difference = seedMeanDifference('itemsPerStream', urn.a, urn.b);
      const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
      if (difference.estimate !== null)
        change = `${signed(difference.estimate)}${difference.interval ? ` [${difference.interval.map(signed).join(', ')}]` : ''}`;
    }
    rows.push(row('Items/stream (R0)', urn.a.length, items(urn.a), items(urn.b), change));
  }
  // Score per scored rung (tab:score), with B − A as the difference of re-pooled ratios (tab:qwen-score-paired).
  for (const rung of ['R0', 'R1', 'R2']) {
    const scored = list.find((p) => p.name === rung)?.scored;
    if (!scored || scored.a.length === 0) continue;
    const score = (arm: readonly SeedSession[]) => (arm.length === 0 ? '–' : percent(summarizeArm('R0', arm).score));
    const difference = two ? intervalOf(repooledDifference('score', scored.a, scored.b)) : null;
    rows.push(row(`Score (${rung})`, scored.a.length, score(scored.a), score(scored.b), difference));
  }
  // Channel validity (F.5): unresolved share of the decision turns reached, per panel of the figure's ladder.
  for (const panel of list.filter((p) => p.step !== undefined && p.step !== 'R3')) {
    const unresolved = (arm: readonly SeedSession[]) => {
      if (arm.length === 0) return '–';
      const { unresolved: n, reached } = validity(arm);
      return `${percent(reached > 0 ? n / reached : null)} (${n}/${reached})`;
    };
    rows.push(row(`Unresolved (${panel.name})`, panel.a.length, unresolved(panel.a), unresolved(panel.b), null));
  }
  const refusals = list
    .filter((panel) => panel.refused && panel.refused.length > 0)
    .map((panel) => `${panel.name}: seeds ${panel.refused?.join(', ')} not paired, the two arms played different streams. `)
    .join('');
  const bootstrap =
    "B − A in points is the difference of re-pooled ratios with seeds resampled as clusters (the rows of numpy's default_rng(0) integers(0, n, size=(10000, n)), linear-percentile 95% intervals); items per stream give the mean of per-seed differences, in items. ";
  return {
    id: two ? `transfer-${idPart(b)}-vs-${idPart(a)}` : `transfer-${idPart(a)}`,
    title: two ? `${b} against ${a}` : `Transfer ladder of ${a}`,
    caption: `First-sight commitment pooled over realized commitments (parentheses: mean lateness)${two ? ', on the seeds both arms ran on the same stream' : ''}; the reskins and the probe's vocabularies also pooled per seed. ${two ? bootstrap : ''}Occurrence rows give keeps over eligible turns (unresolved turns count as passes); unresolved rows give the decision turns reached without a valid decision (no call, an unknown one, several, malformed arguments), which count as passes.${refusals ? ` ${refusals.trim()}` : ''}`,
    columns: [
      { name: 'Panel', format: 'text' },
      { name: 'Seeds', format: 'integer' },
      { name: a, format: 'text' },
      ...(two
        ? [
            { name: b, format: 'text' as const },
            { name: 'B − A [95% CI]', format: 'points' as const },
          ]
        : []),
    ],
    rows,
  };
}

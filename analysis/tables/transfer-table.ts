import { InputError } from '../../core/errors.js';
import type { Arm } from '../arms.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { repooledDifference, seedMeanDifference } from '../stats/contrasts.js';
import { poolPerSeed } from '../stats/pool-per-seed.js';
import { pairSeeds, type SeedSession } from '../stats/seed-session.js';
import { intervalOf } from './interval-cell.js';
import type { Cell, Table } from './table.js';

interface Panel {
  readonly name: string;
  readonly a: readonly SeedSession[];
  /** Empty when the table shows one model. */
  readonly b: readonly SeedSession[];
  /** Seeds both arms ran whose streams differ: not paired. */
  readonly refused?: readonly number[];
}

const PANEL_ORDER = ['R0', 'reskins', 'probe', 'R1', 'R2', 'R3'];

const percent = (value: number | null) => (value === null ? '–' : `${(100 * value).toFixed(1)}%`);
const firstSightCell = (arm: readonly SeedSession[]) => {
  if (arm.length === 0) return '–';
  const m = summarizeArm('R0', arm);
  return m.firstSight === null ? '–' : `${percent(m.firstSight)} (${(m.meanLateness ?? 0).toFixed(2)})`;
};

/** What must match for two arms to be one framing: everything but the model (and the source it was imported from). */
const framing = (arm: Arm) => JSON.stringify({ ...arm.key, model: '', source: null });

/**
 * The framings model a ran (with b, those both ran on the same settings,
 * paired on the seeds whose streams agree). The reskins are also pooled per
 * seed, and so are the probe's vocabularies (the paper's probe row pools the
 * plain and the reskinned tool-call arms).
 */
function panels(arms: readonly Arm[], a: string, b: string | undefined): Panel[] {
  const found: Panel[] = [];
  const pools = {
    reskins: { a: [] as SeedSession[], b: [] as SeedSession[] },
    probe: { a: [] as SeedSession[], b: [] as SeedSession[], count: 0 },
  };
  for (const left of arms.filter((arm) => arm.key.model === a)) {
    let paired: { a: readonly SeedSession[]; b: readonly SeedSession[]; refused?: readonly number[] } = { a: left.sessions, b: [] };
    if (b !== undefined) {
      const right = arms.find((arm) => arm.key.model === b && framing(arm) === framing(left));
      if (!right) continue;
      paired = pairSeeds(left.sessions, right.sessions);
    }
    const { rung, reskin, budget, charge } = left.key;
    const setting = budget !== 3 || charge !== 0 ? ` · B${budget} K${charge}` : '';
    found.push({ name: `${rung}${reskin && reskin !== 'ball' ? ` · ${reskin}` : ''}${setting}`, ...paired });
    if (setting) continue;
    if (rung === 'R0' && reskin !== 'ball') {
      pools.reskins.a.push(...paired.a);
      pools.reskins.b.push(...paired.b);
    }
    if (rung === 'probe') {
      pools.probe.a.push(...paired.a);
      pools.probe.b.push(...paired.b);
      pools.probe.count++;
    }
  }
  if (pools.reskins.a.length > 0)
    found.push({ name: 'reskins (pooled)', a: poolPerSeed(pools.reskins.a), b: poolPerSeed(pools.reskins.b) });
  if (pools.probe.count > 1) found.push({ name: 'probe (pooled)', a: poolPerSeed(pools.probe.a), b: poolPerSeed(pools.probe.b) });
  const rank = (p: Panel) =>
    PANEL_ORDER.findIndex((prefix) => p.name.startsWith(prefix) || (prefix === 'reskins' && p.name.startsWith('R0 ·')));
  return found.sort((x, y) => rank(x) - rank(y));
}

/**
 * The transfer ladder of Appendix F for one model, or for two — models, or
 * checkpoints of one model — on paired seeds at every framing both ran. Per
 * panel, each arm's pooled first-sight among commitments (mean lateness), and
 * with two arms B − A as the difference of re-pooled ratios with seeds
 * resampled as clusters; then P(keep) at the first and second occurrence and
 * items per stream on the abstract urn.
 */
export function transferTable(arms: readonly Arm[], a: string, b?: string): Table {
  const list = panels(arms, a, b);
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
    const panel = list.find((p) => p.name === rung);
    if (!panel || panel.a.length === 0) continue;
    const score = (arm: readonly SeedSession[]) => (arm.length === 0 ? '–' : percent(summarizeArm('R0', arm).score));
    const difference = two ? intervalOf(repooledDifference('score', panel.a, panel.b)) : null;
    rows.push(row(`Score (${rung})`, panel.a.length, score(panel.a), score(panel.b), difference));
  }
  const refusals = list
    .filter((panel) => panel.refused && panel.refused.length > 0)
    .map((panel) => `${panel.name}: seeds ${panel.refused?.join(', ')} not paired, the two arms played different streams. `)
    .join('');
  const bootstrap =
    "B − A in points is the difference of re-pooled ratios with seeds resampled as clusters (the rows of numpy's default_rng(0) integers(0, n, size=(10000, n)), linear-percentile 95% intervals); items per stream give the mean of per-seed differences, in items. ";
  return {
    id: two ? 'transfer' : `transfer-${a.replace(/[^A-Za-z0-9._-]+/g, '-')}`,
    title: two ? `${b} against ${a}` : `Transfer ladder of ${a}`,
    caption: `First-sight commitment pooled over realized commitments (parentheses: mean lateness)${two ? ', on the seeds both arms ran on the same stream' : ''}; the reskins and the probe's vocabularies also pooled per seed. ${two ? bootstrap : ''}Occurrence rows give keeps over eligible turns (unresolved turns count as passes).${refusals ? ` ${refusals.trim()}` : ''}`,
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

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { groupArms, type Arm } from '../../../analysis/arms.js';
import { renderFigure, transferSpec, type TransferInput } from '../../../analysis/figures/index.js';
import { loadRuns } from '../../../analysis/load/load-runs.js';
import { transferData } from '../../../analysis/report/figure-data.js';
import { toCsv } from '../../../analysis/tables/render-table.js';
import { transferTable } from '../../../analysis/tables/transfer-table.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';
import { expectWellRendered, markItems } from './inspect.js';

/*
 * Synthetic arms: A is commit-at-1 (always at first sight), B is "post-trained",
 * built from commit-at-2's arms (never at first sight) on the urn, its reskins
 * and the probe, and from commit-at-1's own arms at R1–R3, where B equals A:
 * B − A is −100 points [−100, −100] on the first three panels and 0 [0, 0] after.
 */
const dir = mkdtempSync(join(tmpdir(), 'allocbench-transfer-figure-'));
const runDir = join(dir, 'run');
writeSyntheticRun(runDir, {
  name: 'run',
  models: ['policy/commit-at-1', 'policy/commit-at-2'],
  rungs: ['R0', 'probe', 'R1', 'R2', 'R3'],
  reskins: ['ball', 'chest', 'quiver'],
  seeds: [2000, 2001, 2002],
});
const A = 'policy/commit-at-1';
const B = 'post-trained';
const urn = (arm: Arm) => arm.key.rung === 'R0' || arm.key.rung === 'probe';
const asB = (arm: Arm): Arm => ({ ...arm, key: { ...arm.key, model: B } });
const arms = async () => {
  const loaded = groupArms((await loadRuns([runDir])).sessions);
  return [...loaded, ...loaded.filter((arm) => (urn(arm) ? arm.key.model === 'policy/commit-at-2' : arm.key.model === A)).map(asB)];
};

/** The tick labels of the shaded panels, from the spec's band layer. */
function shadedLabels(spec: TopLevelSpec, input: TransferInput): string[] {
  const bands = (spec as { layer: { data: { values: { x: number; x2: number }[] } }[] }).layer[0]?.data.values ?? [];
  return bands.map(({ x, x2 }) => {
    expect(x2 - x).toBe(1);
    return input.panels[x + 0.5]?.label as string;
  });
}

describe('transfer figure', () => {
  it('draws A and B on every panel in ladder order and shades exactly the panels whose paired B − A interval is below zero', async () => {
    const all = await arms();
    const input = transferData(all, A, B);
    if (!input) throw new Error('no transfer panels');
    expect(input.panels.map((p) => p.label.replace('\n', ' '))).toEqual([
      'Abstract urn (R0)',
      'Reskins (pooled)',
      'Keep/pass tool call',
      'Declarative claim (R1)',
      'Code claim (R2)',
      'Script (R3)',
    ]);
    expect(input.panels.map((p) => [p.a?.value, p.b?.value])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    const spec = transferSpec(input);
    const below = input.panels.filter((p) => p.difference !== null && p.difference.interval[1] < 0).map((p) => p.label);
    expect(shadedLabels(spec, input)).toEqual(below);
    expect(below).toEqual(input.panels.slice(0, 3).map((p) => p.label));
    // The figure's paired intervals are the transfer table's B − A column (one computation behind both).
    const rows = toCsv(transferTable(all, A, B))
      .trim()
      .split('\n');
    const pooled = rows.find((row) => row.startsWith('reskins (pooled),'))?.split(',');
    expect(pooled?.slice(-3).map(Number)).toEqual([input.panels[1]?.difference?.value, ...(input.panels[1]?.difference?.interval ?? [])]);
    // With the arms swapped B is never better: nothing is shaded.
    const swapped = transferData(all, B, A);
    if (!swapped) throw new Error('no transfer panels');
    expect(shadedLabels(transferSpec(swapped), swapped)).toEqual([]);

    const render = () => renderFigure(spec);
    const figure = await render();
    expect(markItems(figure.svg, 'rect')).toHaveLength(3);
    expect(markItems(figure.svg, 'symbol')).toHaveLength(12);
    expect(markItems(figure.svg, 'rule')).toHaveLength(12);
    for (const text of [`A: ${A}`, `B: ${B}`, 'Abstract urn', '(R0)', 'Keep/pass', 'tool call', 'Script', 'First-sight commitment'])
      expect(figure.svg).toContain(`>${text}</`);
    expect(figure.svg).not.toContain('>Rung</text>');
    await expectWellRendered(figure, render);
  });

  it('leaves out panels the arms did not both run, and has none for arms that share no framing', async () => {
    const all = (await arms()).filter((arm) => !(arm.key.rung === 'probe' || (arm.key.rung === 'R0' && arm.key.reskin !== 'ball')));
    expect(transferData(all, A, B)?.panels.map((p) => p.label.split('\n')[1])).toEqual(['(R0)', 'claim (R1)', '(R2)', '(R3)']);
    expect(transferData(all, A, 'policy/bayes')).toBeNull();
  });
});

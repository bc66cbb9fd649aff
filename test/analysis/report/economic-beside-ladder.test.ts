import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../../analysis/report/write-report.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';

/*
 * A model's dedicated K = 0 arm beside its economic surface at the same B (the
 * authors' Haiku `urn_*` R0 and `economic_surface_haiku/R0/B_3/K_0`): one
 * analyze call takes both, the surface from its economic cells only.
 */
describe('analyze with a dedicated arm beside an economic surface at the same budget', () => {
  it('keeps the dedicated arm on the ladder and out of the surface and its interaction', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-economic-'));
    const seeds = [2000, 2001, 2002, 2003];
    writeSyntheticRun(join(dir, 'ladder'), { name: 'ladder', models: ['policy/commit-at-2'], rungs: ['R0', 'R1', 'R2'], seeds });
    writeSyntheticRun(join(dir, 'surface'), {
      name: 'surface',
      models: ['policy/commit-at-2'],
      rungs: ['R0', 'R2'],
      charges: [0, 24],
      seeds,
    });
    const out = join(dir, 'report');
    const summary = await writeReport([join(dir, 'ladder'), join(dir, 'surface')], out);
    expect(summary.tables).toEqual(expect.arrayContaining(['framing-ladder', 'economic-surface', 'economic-interaction']));
    const surface = readFileSync(join(out, 'tables', 'economic-surface.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    // The four economic cells (R0 and R2 at K = 0 and 24); the ladder's plain K = 0 arms are not among them.
    expect(surface.map((row) => row.split(',').slice(1, 4).join(' '))).toEqual(['R0 3 0', 'R0 3 24', 'R2 3 0', 'R2 3 24']);
    const cells = readFileSync(join(out, 'tables', 'cells.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    expect(cells.map((row) => row.split(',').slice(0, 7).join(' '))).toEqual([
      'ladder policy/commit-at-2 R0 ball no 3 0',
      'ladder policy/commit-at-2 R1  no 3 0',
      'ladder policy/commit-at-2 R2  no 3 0',
      'surface policy/commit-at-2 R0 ball no 3 0',
      'surface policy/commit-at-2 R0 ball no 3 24',
      'surface policy/commit-at-2 R2  no 3 0',
      'surface policy/commit-at-2 R2  no 3 24',
    ]);
    const interaction = readFileSync(join(out, 'tables', 'economic-interaction.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(interaction).toHaveLength(2);
    expect(interaction[1]).toMatch(/^policy\/commit-at-2,3,0 → 24,.*,4$/);
  });
});

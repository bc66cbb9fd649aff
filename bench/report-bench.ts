/*
 * Report speed: `allocbench analyze` on a synthetic 1,000-session panel —
 * reference-policy agents across the four rungs (R3 by the builder) and an
 * economic grid of budgets and charges, 24 seeds each — with every
 * 10,000-resample bootstrap, table, figure and page. Target: under 10 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeReport } from '../analysis/report/write-report.js';
import { writeSyntheticRun } from './synthetic-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-report-bench-'));
const seeds = '2000-2023';
const ladder = writeSyntheticRun(join(dir, 'ladder'), {
  name: 'ladder',
  models: ['policy/eager', 'policy/commit-at-2', 'policy/commit-at-3', 'policy/bayes', 'policy/bayes-0.5'],
  rungs: ['R0', 'R1', 'R2', 'R3'],
  announceN: [true],
  seeds,
});
const economic = writeSyntheticRun(join(dir, 'economic'), {
  name: 'economic',
  models: ['policy/eager', 'policy/commit-at-2'],
  rungs: ['R0', 'R2'],
  budgets: [1, 5],
  charges: [0, 12, 24],
  announceN: [true],
  seeds,
});
const sessions = ladder.length + economic.length;

const started = performance.now();
const summary = await writeReport([join(dir, 'ladder'), join(dir, 'economic')], join(dir, 'report'));
const seconds = (performance.now() - started) / 1000;
rmSync(dir, { recursive: true, force: true });

console.log(
  `Report benchmark · node ${process.version} · ${sessions} synthetic sessions (${ladder.length} ladder, ${economic.length} economic grid)`,
);
console.log(
  `  ${summary.tables.length} tables (Markdown, CSV, LaTeX), ${summary.figures.length} figures (SVG, PNG), ${summary.sessions} session pages`,
);
console.log(`  whole report: ${seconds.toFixed(2)} s (target under 10 s)`);

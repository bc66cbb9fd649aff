/*
 * Import speed: `allocbench import` of the paper's stored runs (the subset in
 * ../shared/paper-artifacts/runs, or the directory given as the first
 * argument, e.g. a clone of the authors' whole runs/), then `allocbench
 * analyze` of every imported arm. Prints the source size, the seconds of each
 * step and the throughput. Target: the authors' whole runs/ (about 150 MB) in
 * under 60 s on 2 cores, so the 39 MB subset in under 16 s.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeReport } from '../analysis/report/write-report.js';
import { importArms } from '../importer/import-arms.js';
import { projectRoot } from '../infra/project-root.js';

const source = resolve(process.argv[2] ?? join(projectRoot(), '..', 'shared', 'paper-artifacts', 'runs'));

function bytesUnder(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

const megabytes = bytesUnder(source) / 1e6;
const dir = mkdtempSync(join(tmpdir(), 'allocbench-import-bench-'));
let started = performance.now();
const report = await importArms([source], join(dir, 'runs'), { replace: false });
const importSeconds = (performance.now() - started) / 1000;
started = performance.now();
const summary = await writeReport(
  report.arms.map((arm) => arm.runDir),
  join(dir, 'report'),
);
const analyzeSeconds = (performance.now() - started) / 1000;
rmSync(dir, { recursive: true, force: true });

const total = importSeconds + analyzeSeconds;
console.log(`Import benchmark · node ${process.version} · ${source}`);
console.log(
  `  source: ${megabytes.toFixed(1)} MB, ${report.arms.length} arms, ${summary.sessions} sessions, ${report.errors.length} errors`,
);
console.log(`  import:  ${importSeconds.toFixed(2)} s (${(megabytes / importSeconds).toFixed(1)} MB/s)`);
console.log(
  `  analyze: ${analyzeSeconds.toFixed(2)} s (${summary.tables.length} tables, ${summary.figures.length} figures, ${summary.sessions} session pages)`,
);
console.log(
  `  both:    ${total.toFixed(2)} s (${(megabytes / total).toFixed(1)} MB/s; target: 150 MB in under 60 s, i.e. at least 2.5 MB/s)`,
);

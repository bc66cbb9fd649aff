/*
 * The paper's printed values against ours: `allocbench import` of the authors'
 * stored runs (the subset in ../shared/paper-artifacts/runs, or the directory
 * given as the first argument, e.g. a clone of the authors' whole runs/) into a
 * temporary directory, one `allocbench analyze` of the import as a whole, then
 * every entry of the registry (test/paper-values/paper-values.ts) looked up in
 * the report and compared with what the paper prints, at the paper's rounding.
 * Prints each entry's status (equal / differs / arm absent / missing), the
 * differing ones again at the end, and the totals. Exits 0 whatever it finds:
 * a bench, not a test (test/paper-values/paper-values.test.ts asserts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cliPath, projectRoot } from '../infra/project-root.js';
import {
  checkPaperValues,
  GROUPS,
  NOT_DETERMINED,
  readReport,
  totalsLine,
  totalsOf,
  type Result,
} from '../test/paper-values/paper-values.js';

const source = resolve(process.argv[2] ?? join(projectRoot(), '..', 'shared', 'paper-artifacts', 'runs'));
const main = cliPath();
const work = mkdtempSync(join(tmpdir(), 'allocbench-paper-values-'));

function cli(...args: string[]): void {
  const run = spawnSync(process.execPath, ['--no-node-snapshot', main, ...args], { encoding: 'utf8' });
  // An import that skipped an unreadable seed exits 3 and still writes the rest: the check goes on with what was imported.
  if (run.status !== 0 && !(args[0] === 'import' && run.status === 3)) {
    process.stderr.write(run.stdout + run.stderr);
    throw new Error(`allocbench ${args[0]} exited ${run.status}`);
  }
  if (run.status !== 0) process.stderr.write(run.stderr);
}

let results: Result[];
const started = performance.now();
try {
  cli('import', source, '--out', join(work, 'runs'));
  cli('analyze', join(work, 'runs'), '--out', join(work, 'report'));
  results = checkPaperValues(readReport(join(work, 'report')));
} finally {
  rmSync(work, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;

const TAG: Record<Result['status'], string> = {
  equal: 'equal     ',
  differs: 'DIFFERS   ',
  misprint: 'misprint  ',
  'arm absent': 'arm absent',
  missing: 'missing   ',
  'not found': 'NOT FOUND ',
};

function detail(r: Result): string {
  const where = r.entry.locator ? ` [${r.entry.locator.table}: ${r.entry.locator.at}]` : '';
  switch (r.status) {
    case 'equal':
      return `${r.printed}${where}`;
    case 'differs':
      return `ours ${r.ours} vs printed ${r.printed}${where}`;
    case 'misprint':
      return `ours ${r.ours} vs printed ${r.printed}: known paper misprint (${r.entry.misprint?.arithmetic})`;
    case 'arm absent':
      return `printed ${r.printed}; needs ${r.absent?.join(', ')}`;
    case 'missing':
      return `printed ${r.printed}; needs ${r.entry.missing ?? 'a locator'}`;
    case 'not found':
      return `printed ${r.printed}; arms present but no value at${where}`;
  }
}

console.log(`Paper values · node ${process.version} · ${source} (import and analyze: ${seconds.toFixed(1)} s)`);
for (const group of GROUPS) {
  const inGroup = results.filter((r) => r.entry.group === group);
  const equal = inGroup.filter((r) => r.status === 'equal').length;
  console.log(`\n${group}: ${inGroup.length} printed values, ${equal} equal`);
  for (const r of inGroup)
    console.log(`  ${TAG[r.status]}  ${r.entry.id}  ${r.entry.where}${r.entry.restates ? ' (restated)' : ''}: ${detail(r)}`);
}

const differing = results.filter((r) => r.status === 'differs' || r.status === 'misprint' || r.status === 'not found');
console.log(`\nDiffering (${differing.length}):`);
if (differing.length === 0) console.log('  none');
for (const r of differing) console.log(`  ${TAG[r.status]}  ${r.entry.id}  ${r.entry.where}: ${detail(r)}`);

console.log(`\nLeft out (the stored runs cannot determine them, or they are not outcomes):`);
for (const item of NOT_DETERMINED) console.log(`  ${item.where}: ${item.values} — ${item.reason}`);

console.log(`\n${totalsLine(totalsOf(results))}.`);

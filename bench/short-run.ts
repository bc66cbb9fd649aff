/*
 * A short run as a researcher starts it (npm run bench:short-run [-- <runs, default 5>]):
 * `allocbench sweep` of W1, the bench panel (policy/commit-at-2 at R0, R1 and
 * R2 on the 24 default seeds: 72 sessions, 564 turns, 8 at once), as its own
 * command on the embedded default, each time in a new run directory. Printed
 * per run and as the median: the whole command's wall time and the peak
 * resident memory of its process tree (the command and the dev server it
 * starts, summed at each sample, every 20 ms, from /proc), against Inspect
 * AI's figures on the same workload (INSPECT: measured on a 2-core machine,
 * see docs/benchmarks.md) and the targets (wall at most 1.0× Inspect's,
 * memory at most 2×). Then the idle floor: the same command on one seed of
 * R0 at window 1, where the machinery is nearly all there is.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { quantileOf } from '../analysis/stats/percentile.js';
import { descendantsResidentKiB, loadAverage, residentKiB } from '../infra/process-stats.js';

/** Inspect AI 0.3.285 on W1 (2-core machine, 2026-11-29): whole-process wall, s, and peak RSS of its process tree, MiB. */
const INSPECT = { wallSeconds: 4.13, peakMiB: 142 };
const TARGET = { wall: 1.0, memory: 2.0 };
const SAMPLE_MS = 20;

/** The `allocbench` command, run as a user runs it: its shebang gives node its flags. */
const cli = fileURLToPath(new URL('../bin/allocbench.js', import.meta.url));

/** Resident memory of `root` and of its descendants now, KiB. */
function treeRssKiB(root: number): { root: number; descendants: number } {
  return { root: residentKiB(root), descendants: descendantsResidentKiB(root) };
}

interface ShortRun {
  readonly wallSeconds: number;
  /** The tree's peak, and the command's and its children's (the dev server's) shares at that moment. */
  readonly peakMiB: number;
  readonly commandMiB: number;
  readonly serverMiB: number;
}

async function oneRun(sweep: Record<string, unknown>): Promise<ShortRun> {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-short-run-'));
  const file = join(dir, 'sweep.json');
  writeFileSync(file, JSON.stringify(sweep));
  const started = performance.now();
  const child = spawn(cli, ['sweep', file, '--out', join(dir, 'run')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let peak = { root: 0, descendants: 0 };
  const timer = setInterval(() => {
    const now = treeRssKiB(child.pid as number);
    if (now.root + now.descendants > peak.root + peak.descendants) peak = now;
  }, SAMPLE_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  const wallSeconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`allocbench sweep exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
  return { wallSeconds, peakMiB: (peak.root + peak.descendants) / 1024, commandMiB: peak.root / 1024, serverMiB: peak.descendants / 1024 };
}

const runs = Number(process.argv[2] ?? 5);
const W1 = { name: 'w1', models: ['policy/commit-at-2'], rungs: ['R0', 'R1', 'R2'], window: 8 };
const IDLE = { name: 'idle', models: ['policy/commit-at-2'], rungs: ['R0'], seeds: '2000', window: 1 };

console.log(`A short run, whole command · node ${process.version} · ${cpus().length} cores · load ${loadAverage().toFixed(2)}`);
console.log('W1: allocbench sweep of policy/commit-at-2 at R0, R1, R2 on 24 seeds (72 sessions), window 8, embedded Temporal');
const w1: ShortRun[] = [];
const described = (run: ShortRun) =>
  `${run.wallSeconds.toFixed(2)} s, peak ${run.peakMiB.toFixed(0)} MiB (command ${run.commandMiB.toFixed(0)} + server ${run.serverMiB.toFixed(0)})`;
for (let i = 0; i < runs; i++) {
  const run = await oneRun(W1);
  w1.push(run);
  console.log(`  run ${i + 1}: ${described(run)}`);
}
const median = (pick: (run: ShortRun) => number) => quantileOf(w1.map(pick), 0.5);
const wall = median((r) => r.wallSeconds);
const memory = median((r) => r.peakMiB);
const verdict = (ratio: number, target: number) =>
  `${ratio.toFixed(2)}× Inspect's (target ≤ ${target.toFixed(1)}×: ${ratio <= target ? 'met' : 'NOT met'})`;
console.log(`  median wall   ${wall.toFixed(2)} s, ${verdict(wall / INSPECT.wallSeconds, TARGET.wall)}; Inspect ${INSPECT.wallSeconds} s`);
console.log(
  `  median peak   ${memory.toFixed(0)} MiB, ${verdict(memory / INSPECT.peakMiB, TARGET.memory)}; Inspect ${INSPECT.peakMiB} MiB`,
);
const idle = await oneRun(IDLE);
console.log(`Idle floor (one R0 session at window 1): ${described(idle)}`);

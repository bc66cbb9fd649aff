/*
 * policy/optimal's dynamic programme (core/policies/optimal-dp.ts): the time
 * and memory to build its table from the empty history, for T = 60 and
 * T = 200, B in {1, 3, 5}, K in {0, 10, 24}. Each cell is built in a process of
 * its own, so its peak RSS is its own, and stopped at a time limit; a cell
 * whose unmarked twin (the table past the window marks, 8 bytes a state)
 * would not fit the memory cap is not started, and the table says why.
 *
 *   node dist/bench/dp-bench.js [limit seconds per cell (180)] [memory cap GiB (2)]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { OptimalTable } from '../core/policies/optimal-dp.js';
import { TwinTable } from '../core/policies/optimal-twin.js';
import { BENCHMARK_RECIPE } from '../core/policies/optimal.js';

const GIB = 2 ** 30;
const MIB = 2 ** 20;

interface Built {
  readonly value: number;
  readonly seconds: number;
  readonly markedStates: number;
  readonly twinStates: number;
  readonly tableBytes: number;
  readonly peakRssBytes: number;
  readonly heapUsedBytes: number;
  readonly arrayBufferBytes: number;
}

const settingOf = (T: number, B: number, K: number) => ({ ...BENCHMARK_RECIPE, horizon: T, budget: B, charge: K });

/** In the child: builds one table and prints what it measured as one JSON line. */
function buildCell(T: number, B: number, K: number, maxTwinStates: number): void {
  const table = new OptimalTable(settingOf(T, B, K), { maxTwinStates });
  const start = performance.now();
  const value = table.value([]);
  const seconds = (performance.now() - start) / 1000;
  const memory = process.memoryUsage();
  const built: Built = {
    value,
    seconds,
    markedStates: table.size,
    twinStates: table.cut < T ? table.twin.size : 0,
    tableBytes: table.bytes,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    heapUsedBytes: memory.heapUsed,
    arrayBufferBytes: memory.arrayBuffers,
  };
  process.stdout.write(`${JSON.stringify(built)}\n`);
}

/** The child's peak resident set so far (Linux), for a cell stopped at the limit. */
function peakRssOf(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : null;
  } catch {
    return null;
  }
}

type Outcome = { kind: 'built'; built: Built } | { kind: 'stopped'; peakRssBytes: number | null } | { kind: 'failed'; why: string };

function runCell(T: number, B: number, K: number, maxTwinStates: number, limitSeconds: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [process.argv[1] as string, '--cell', `${T}`, `${B}`, `${K}`, `${maxTwinStates}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr, peak, stopped] = ['', '', null as number | null, false];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const poll = setInterval(() => (peak = peakRssOf(child.pid as number) ?? peak), 250);
    const timer = setTimeout(() => {
      stopped = true;
      peak = peakRssOf(child.pid as number) ?? peak;
      child.kill('SIGKILL');
    }, limitSeconds * 1000);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      if (stopped) return resolve({ kind: 'stopped', peakRssBytes: peak });
      if (code === 0) return resolve({ kind: 'built', built: JSON.parse(stdout) as Built });
      const why = stderr.split('\n').find((line) => /Error/.test(line)) ?? `exit ${code}`;
      resolve({ kind: 'failed', why: why.trim() });
    });
  });
}

async function main(): Promise<void> {
  const limitSeconds = Number(process.argv[2] ?? 180);
  const capGib = Number(process.argv[3] ?? 2);
  const maxTwinStates = Math.floor((capGib * GIB) / 8);
  console.log(`policy/optimal's table (N=8, H=3, hot mass 0.85, trap window 3), built from the empty history · node ${process.version}`);
  console.log(
    `One process per cell; stopped after ${limitSeconds} s; not started where the unmarked twin alone needs more than ${capGib} GiB (${maxTwinStates.toExponential(2)} states).`,
  );
  console.log(
    'Peak RSS is the process high-water mark; heap is V8 heap used at the end (the tables are typed arrays, counted in array buffers).\n',
  );
  const header = [
    'T',
    'B',
    'K',
    'outcome',
    'seconds',
    'marked states',
    'twin states',
    'table MiB',
    'peak RSS MiB',
    'heap MiB',
    'array buffers MiB',
    'V(empty)',
  ];
  const rows: string[][] = [];
  const mib = (bytes: number | null) => (bytes === null ? '–' : (bytes / MIB).toFixed(0));
  for (const T of [60, 200]) {
    for (const B of [1, 3, 5]) {
      for (const K of [0, 10, 24]) {
        const twinNeeded = new TwinTable(settingOf(T, B, K), Infinity).stateCount();
        const cell = [`${T}`, `${B}`, `${K}`];
        if (twinNeeded > maxTwinStates) {
          rows.push([
            ...cell,
            `not started: twin needs ${twinNeeded.toExponential(2)} states (${((twinNeeded * 8) / GIB).toFixed(1)} GiB)`,
          ]);
        } else {
          const outcome = await runCell(T, B, K, maxTwinStates, limitSeconds);
          if (outcome.kind === 'built') {
            const b = outcome.built;
            rows.push([
              ...cell,
              'built',
              b.seconds.toFixed(2),
              b.markedStates.toLocaleString('en-US'),
              b.twinStates.toLocaleString('en-US'),
              mib(b.tableBytes),
              mib(b.peakRssBytes),
              mib(b.heapUsedBytes),
              mib(b.arrayBufferBytes),
              b.value.toFixed(4),
            ]);
          } else if (outcome.kind === 'stopped') {
            rows.push([
              ...cell,
              `stopped at ${limitSeconds} s (twin ${twinNeeded.toExponential(2)} states)`,
              '–',
              '–',
              '–',
              '–',
              mib(outcome.peakRssBytes),
            ]);
          } else rows.push([...cell, `failed: ${outcome.why}`]);
        }
        console.log(rows.at(-1)?.join('  '));
      }
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 3 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(`\n${[line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}`);
}

if (process.argv[2] === '--cell') {
  const [T, B, K, maxTwinStates] = process.argv.slice(3).map(Number) as [number, number, number, number];
  buildCell(T, B, K, maxTwinStates);
} else await main();

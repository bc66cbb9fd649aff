/*
 * R3 sandbox speed: the latency of one script run (an lcg solve in BigInt),
 * warm (isolates reused, a fresh context per run) and cold (an isolate per
 * run), next to the naive alternative of a fresh `node -e` process per run.
 * Prints its figures; targets: warm p50 under 2 ms and at least 20 times
 * faster than a process per run.
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { ScriptSandbox } from '../activities/sandbox/script-sandbox.js';
import { getFamily } from '../core/families/registry.js';

const LCG = `function solve({ SEED, A, B, M, K }) {
  const [a, b, m] = [BigInt(A), BigInt(B), BigInt(M)];
  let x = BigInt(SEED) % m;
  for (let i = 0; i < K; i++) x = (a * x + b) % m;
  return x;
}`;
const inputs = { SEED: 141, A: 73100, B: 38400, M: 21759900, K: 26 };
const gold = getFamily('lcg').solve(inputs).toString();

interface Timing {
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
}

/** Runs `once` sequentially and times each call. */
async function measure(runs: number, once: () => Promise<string> | string): Promise<Timing> {
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const before = performance.now();
    const value = await once();
    latencies.push(performance.now() - before);
    if (value !== gold) throw new Error(`wrong answer ${value}, expected ${gold}`);
  }
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number;
  return { p50: at(0.5), p99: at(0.99), perSecond: runs / elapsed };
}

async function valueOf(sandbox: ScriptSandbox): Promise<string> {
  const outcome = await sandbox.run(LCG, inputs);
  if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.error}`);
  return String(outcome.value);
}

function print(label: string, runs: number, { p50, p99, perSecond }: Timing): void {
  console.log(
    `  ${label.padEnd(30)} p50 ${p50.toFixed(3).padStart(8)} ms   p99 ${p99.toFixed(3).padStart(8)} ms   ${Math.round(perSecond).toLocaleString('en-US').padStart(7)} runs/s  (${runs} runs)`,
  );
}

console.log(`Sandbox benchmark · node ${process.version} · isolated-vm · lcg solve in BigInt, default limits`);

const warm = new ScriptSandbox();
await measure(200, () => valueOf(warm)); // warm-up: JIT, the isolate, V8's compilation cache
const warmTiming = await measure(3000, () => valueOf(warm));
print('warm (one isolate, reused)', 3000, warmTiming);
warm.dispose();

const pool = new ScriptSandbox({ isolates: 4 });
const batches = 500;
for (let i = 0; i < 50; i++) await Promise.all([0, 1, 2, 3].map(() => valueOf(pool))); // warm-up: the four isolates' processes
const poolStart = performance.now();
for (let i = 0; i < batches; i++) await Promise.all([0, 1, 2, 3].map(() => valueOf(pool)));
console.log(
  `  ${'warm, 4 isolates, 4 at a time'.padEnd(30)} ${Math.round((batches * 4) / ((performance.now() - poolStart) / 1000)).toLocaleString('en-US')} runs/s`,
);
pool.dispose();

const cold = new ScriptSandbox({ warm: false });
const coldTiming = await measure(300, () => valueOf(cold));
print('cold (an isolate per run)', 300, coldTiming);
cold.dispose();

const processRuns = 30;
const program = `${LCG}\nprocess.stdout.write(String(solve(${JSON.stringify(inputs)})));`;
const processTiming = await measure(processRuns, () => execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' }));
print('baseline: `node -e` per run', processRuns, processTiming);

const ratio = processTiming.p50 / warmTiming.p50;
console.log(`\nWarm vs a process per run: ${ratio.toFixed(0)}x faster at p50 (target at least 20x; warm p50 target under 2 ms)`);

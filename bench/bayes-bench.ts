/*
 * The exact Bayesian comparator (core/policies/bayes-dp.ts): solve time and
 * table size per setting, and its play on the paper's 24 streams beside the
 * authors' cached comparator builds (economic_surface_reference/B<B>_K<K>.json).
 *
 *   node dist/bench/bayes-bench.js [runs-dir]   (default ../shared/paper-artifacts/runs)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseJsonExact } from '../run-store/json-files.js';
import { FAMILY_NAMES } from '../core/families/family.js';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import { BayesTable } from '../core/policies/bayes-dp.js';
import { bayesPolicy } from '../core/policies/bayes.js';
import { runSession } from '../core/session/run-session.js';
import { fromPaperStream } from '../core/stream/paper-stream.js';

const runs = process.argv[2] ?? '../shared/paper-artifacts/runs';
const SEEDS = Array.from({ length: 24 }, (_, i) => 2000 + i);
const [T, N, ALPHA] = [60, 8, 1];

const streams = SEEDS.map((seed) => {
  const raw = parseJsonExact(readFileSync(join(runs, 'urn_haiku_n-announced', `seed_${seed}`, 'stream.json'), 'utf8'));
  return fromPaperStream(seed, raw).items.map((item) => FAMILY_NAMES.indexOf(item.family));
});

console.log(`Exact Bayes DP, T=${T}, N=${N}, alpha=${ALPHA} · node ${process.version}`);
console.log('\nSolve (fresh table, from the empty history):');
for (const [budget, charge, cap] of [
  [3, 0, 3],
  [3, 0, 5],
  [3, 0, null],
  [1, 0, null],
  [5, 0, null],
  [3, 20, null],
  [5, 20, null],
] as const) {
  const table = new BayesTable({ horizon: T, budget, charge, classCount: N, alpha: ALPHA, cap });
  const start = performance.now();
  const value = table.value({ built: 0, builtItems: 0, unbuilt: [] });
  const seconds = (performance.now() - start) / 1000;
  console.log(
    `  B=${budget} K=${String(charge).padEnd(2)} cap=${String(cap).padEnd(4)} V=${value.toFixed(9)}  ${table.size.toLocaleString('en-US').padStart(10)} states  ${(table.bytes / 2 ** 20).toFixed(1).padStart(5)} MiB  ${seconds.toFixed(2)} s`,
  );
}

/** Build position (occurrence) per class id on each stream, as the authors' cache has them. */
function builds(budget: number, charge: number, cap: number | null): { collected: number; net: number; positions: Map<number, number>[] } {
  const policy = bayesPolicy(ALPHA, { cap });
  let [collected, net] = [0, 0];
  const positions = streams.map((classes) => {
    const record = runSession(classes, { budget, charge, classCount: N }, policy);
    const built = new Map(record.decisions.filter((d) => d.action === 'commit').map((d) => [d.classId, d.occurrence]));
    const metrics = sessionMetrics(record);
    collected += metrics.utility;
    net += metrics.net;
    return built;
  });
  return { collected: collected / streams.length, net: net / streams.length, positions };
}

function matches(positions: Map<number, number>[], budget: number, charge: number): string {
  let cached: Record<string, Record<string, number | null>>;
  try {
    cached = JSON.parse(readFileSync(join(runs, 'economic_surface_reference', `B${budget}_K${charge}.json`), 'utf8')) as typeof cached;
  } catch {
    return 'no reference file';
  }
  const seeds = Object.keys(cached);
  const agree = seeds.filter((seed) => {
    const ours = positions[SEEDS.indexOf(Number(seed))] as Map<number, number>;
    return Object.entries(cached[seed] as Record<string, number | null>).every(([c, pos]) => (ours.get(Number(c)) ?? null) === pos);
  });
  const differ = seeds.filter((seed) => !agree.includes(seed));
  return `${agree.length}/${seeds.length} seeds match the reference${differ.length ? ` (differ: ${differ.join(', ')})` : ''}`;
}

console.log("\nOn the paper's 24 streams (urn_haiku_n-announced), mean per stream:");
for (const [budget, charge] of [
  [3, 0],
  [1, 0],
  [5, 0],
  [1, 20],
  [3, 20],
  [5, 20],
  [1, 24],
  [3, 24],
  [5, 24],
] as const) {
  let exact: Map<number, number>[] = [];
  for (const cap of [null, 3, 5, 10]) {
    const start = performance.now();
    const { collected, net, positions } = builds(budget, charge, cap);
    const seconds = (performance.now() - start) / 1000;
    if (cap === null) exact = positions;
    const same = (a: Map<number, number>, b: Map<number, number>) => a.size === b.size && [...a].every(([c, pos]) => b.get(c) === pos);
    const differ = SEEDS.filter((_, i) => !same(positions[i] as Map<number, number>, exact[i] as Map<number, number>));
    const histogram = new Map<number, number>();
    for (const p of positions) for (const pos of p.values()) histogram.set(pos, (histogram.get(pos) ?? 0) + 1);
    const byPosition = [...histogram]
      .sort((a, b) => a[0] - b[0])
      .map(([pos, n]) => `${n}x${pos}`)
      .join(' ');
    console.log(
      `  B=${budget} K=${String(charge).padEnd(2)} cap=${String(cap).padEnd(4)} collected ${collected.toFixed(3)}  net ${net.toFixed(3)}  builds at ${byPosition || '-'}  ${matches(positions, budget, charge)}${cap === null ? '' : `; differs from exact on ${differ.length ? differ.join(', ') : 'no seed'}`}  (${seconds.toFixed(2)} s)`,
    );
  }
}

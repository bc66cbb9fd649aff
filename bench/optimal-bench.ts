/*
 * The Bayes-optimal policy under the benchmark's own generator
 * (core/policies/optimal-dp.ts): solve times and table sizes, what dropping
 * the window marks costs, and its play against the registry's policies on
 * simulated streams of the realized generator.
 *
 *   node dist/bench/optimal-bench.js [streams]   (default 40000; stream i uses seed i)
 */
import { performance } from 'node:perf_hooks';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import { bayesPolicy } from '../core/policies/bayes.js';
import { commitAtK } from '../core/policies/commit-at-k.js';
import { DEFAULT_CUT, OptimalTable, type OptimalSetting } from '../core/policies/optimal-dp.js';
import { TwinTable } from '../core/policies/optimal-twin.js';
import { BENCHMARK_RECIPE, optimalPolicy, optimalStateBefore } from '../core/policies/optimal.js';
import type { Policy } from '../core/policies/policy.js';
import { runSession } from '../core/session/run-session.js';
import { drawClassSequence } from '../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG, parseStreamConfig } from '../core/stream/stream-config.js';

const STREAMS = Number(process.argv[2] ?? 40_000);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(2);
const setting = (T: number, B: number, K: number): OptimalSetting => ({ ...BENCHMARK_RECIPE, horizon: T, budget: B, charge: K });

console.log(`Bayes-optimal policy under the generator (N=8, H=3, hot mass 0.85, trap window 3) · node ${process.version}`);
console.log(`Window marks kept to draw ${DEFAULT_CUT} (exact for T <= ${DEFAULT_CUT}), dropped after (the unmarked twin's values).`);

console.log('\nSolve from the empty history, fresh tables (marked states, twin states, bytes, seconds, V = expected net):');
for (const B of [1, 3, 5]) {
  for (const K of [0, 10, 24]) {
    const table = new OptimalTable(setting(60, B, K));
    const start = performance.now();
    const value = table.value([]);
    const twin = table.cut < 60 && K < 24 ? table.twin.size : 0;
    console.log(
      `  T=60 B=${B} K=${String(K).padEnd(2)} V=${value.toFixed(6).padStart(10)}  marked ${table.size.toLocaleString('en-US').padStart(11)}  twin ${twin.toLocaleString('en-US').padStart(11)}  ${mib(table.bytes).padStart(6)} MiB  ${seconds(start).padStart(6)} s  (RSS ${mib(process.memoryUsage().rss)} MiB)`,
    );
  }
}
console.log('\nT = 200: states with budget left (8 bytes each) — out of reach:');
for (const B of [1, 3, 5]) {
  for (const K of [0, 10, 24]) {
    const twin = new TwinTable(setting(200, B, K), Infinity);
    console.log(
      `  T=200 B=${B} K=${String(K).padEnd(2)} unmarked twin alone ${twin.stateCount().toExponential(2)} states (${((twin.stateCount() * 8) / 2 ** 30).toFixed(0)} GiB)`,
    );
  }
}

console.log('\nWhat dropping the window marks costs (exact expected net of each policy under the generator, B=3, K=0):');
for (const T of [20, 24, 28]) {
  const exact = new OptimalTable(setting(T, 3, 0), { cut: Infinity });
  const best = exact.value([]);
  const cutValue = (cut: number) => {
    const table = new OptimalTable(setting(T, 3, 0), { cut });
    return exact.policyValue((classes, arriving) => table.choose(classes, arriving).commit);
  };
  const commitAt2 = exact.policyValue((_, arriving) => arriving >= 0);
  const cuts = [3, T - 12, T - 8, T - 4].map((cut) => `cut ${cut}: ${(best - cutValue(cut)).toExponential(1)}`);
  console.log(
    `  T=${T}: exact ${best.toFixed(6)} (commit-at-2 ${commitAt2.toFixed(6)}); shortfall of the policy with the marks dropped at ${cuts.join(', ')}`,
  );
}

console.log(
  `\n${STREAMS.toLocaleString('en-US')} streams of the realized generator (T=60, B=3, K=0; seeds 0..${STREAMS - 1}), net per stream:`,
);
const rules = { budget: 3, charge: 0, classCount: 8 };
const optimal = optimalPolicy();
const streams = Array.from({ length: STREAMS }, (_, i) => drawClassSequence(i, DEFAULT_STREAM_CONFIG).classes);
let start = performance.now();
const optimalNets = streams.map((classes) => sessionMetrics(runSession(classes, rules, optimal)).net);
console.log(`  (optimal's tables solved and ${STREAMS.toLocaleString('en-US')} streams played in ${seconds(start)} s)`);
const meanSe = (xs: readonly number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return [mean, Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) / xs.length)] as const;
};
const [mean, se] = meanSe(optimalNets);
console.log(`  ${'optimal'.padEnd(16)} ${mean.toFixed(3)} ± ${se.toFixed(3)}`);
const others: Policy[] = [commitAtK(1), commitAtK(2), commitAtK(3), commitAtK(4), commitAtK(5), bayesPolicy(1)];
for (const policy of others) {
  start = performance.now();
  const nets = streams.map((classes) => sessionMetrics(runSession(classes, rules, policy)).net);
  const [m, s] = meanSe(nets);
  const [d, ds] = meanSe(nets.map((net, i) => (optimalNets[i] as number) - net));
  console.log(
    `  ${policy.name.padEnd(16)} ${m.toFixed(3)} ± ${s.toFixed(3)}   optimal minus it: ${d.toFixed(3)} ± ${ds.toFixed(3)} (paired)  [${seconds(start)} s]`,
  );
}

console.log('\nThe cut against a shorter one on the same streams (T=60, B=3, K=0):');
const reference = new OptimalTable(setting(60, 3, 0));
for (const cut of [20, 26]) {
  const table = new OptimalTable(setting(60, 3, 0), { cut });
  let [differing, streamsDiffering] = [0, 0];
  const differences = streams.map((classes, i) => {
    let differs = false;
    const policy: Policy = {
      name: `cut ${cut}`,
      decide: (o) => {
        const { classes: state, arriving } = optimalStateBefore(o, 3);
        const commit = table.choose(state, arriving).commit;
        if (commit !== reference.choose(state, arriving).commit) {
          differing++;
          differs = true;
        }
        return commit ? 'commit' : 'pass';
      },
    };
    const net = sessionMetrics(runSession(classes, rules, policy)).net;
    if (differs) streamsDiffering++;
    return (optimalNets[i] as number) - net;
  });
  const [d, ds] = meanSe(differences);
  console.log(
    `  cut ${cut}: ${differing} decisions on ${streamsDiffering} streams differ from cut ${reference.cut}'s; cut ${reference.cut} minus cut ${cut}: ${d.toFixed(4)} ± ${ds.toFixed(4)} (paired)`,
  );
}

console.log('\nThe 24-stream panel (seeds 2000-2023), T=60, B=3, K=0 (the tables solved above; from cold add their solve):');
start = performance.now();
const panel = Array.from({ length: 24 }, (_, i) => drawClassSequence(2000 + i, parseStreamConfig({})).classes);
const panelNet = panel.reduce((sum, classes) => sum + sessionMetrics(runSession(classes, rules, optimalPolicy())).net, 0) / 24;
console.log(`  optimal nets ${panelNet.toFixed(3)} per stream; ${seconds(start)} s with the tables already solved`);

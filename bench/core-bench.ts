/*
 * Core speed: in-process session engine throughput and the wall time of the
 * two Appendix A simulations (4 x 10^4 streams each). Prints its figures;
 * targets: over 1,000,000 policy decisions per second on one core, and both
 * simulations together under 5 s.
 */
import { performance } from 'node:perf_hooks';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import { bayesPolicy } from '../core/policies/bayes.js';
import { commitAtK } from '../core/policies/commit-at-k.js';
import type { Policy } from '../core/policies/policy.js';
import { describePolicy, type PolicySpec } from '../core/policies/registry.js';
import { runSession } from '../core/session/run-session.js';
import { simulate, type StreamPrior } from '../core/simulate/simulate.js';
import { drawClassSequence } from '../core/stream/class-sequence.js';
import { generateStream } from '../core/stream/generate-stream.js';
import { DEFAULT_STREAM_CONFIG } from '../core/stream/stream-config.js';

const STREAMS = 40_000;
const setting = { budget: 3, charge: 0, classCount: 8 };

function seconds<T>(work: () => T): [T, number] {
  const start = performance.now();
  const result = work();
  return [result, (performance.now() - start) / 1000];
}

function engineThroughput(policy: Policy, sequences: readonly Uint8Array[]): void {
  runSession(sequences[0] as Uint8Array, setting, policy); // warm up
  const [decisions, elapsed] = seconds(() => {
    let count = 0;
    for (const classes of sequences) count += runSession(classes, setting, policy).decisions.length;
    return count;
  });
  const steps = sequences.length * DEFAULT_STREAM_CONFIG.length;
  console.log(
    `  ${policy.name.padEnd(16)} ${fmt(steps / elapsed)} steps/s  ${fmt(decisions / elapsed)} decisions/s  (${sequences.length} streams, ${elapsed.toFixed(2)} s)`,
  );
}

function appendixRun(prior: StreamPrior, policy: PolicySpec): number {
  const [result, elapsed] = seconds(() => simulate({ policy, prior, streams: STREAMS, budget: 3, charge: 0, seed: 0 }));
  console.log(
    `  ${describePolicy(policy).padEnd(16)} ${result.meanUtility.toFixed(3)} ± ${result.utilityStandardError.toFixed(3)} items/stream  (${elapsed.toFixed(2)} s)`,
  );
  return elapsed;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(11);

console.log(`Core benchmark · node ${process.version} · one core`);

console.log('\nIn-process session engine (class sequences drawn beforehand; scoring excluded):');
const sequences = Array.from({ length: STREAMS }, (_, seed) => drawClassSequence(seed, DEFAULT_STREAM_CONFIG).classes);
engineThroughput(commitAtK(1), sequences);
engineThroughput(commitAtK(2), sequences);
const bayes = bayesPolicy(1);
engineThroughput(bayes, sequences.slice(0, 2000)); // first pass solves the exact table (T = 60, B = 3: a few seconds)
engineThroughput(bayes, sequences.slice(0, 2000));

console.log('\nScoring (replaying the rules) and stream generation:');
const records = sequences.map((classes) => runSession(classes, setting, commitAtK(2)));
const [, scoring] = seconds(() => records.forEach((record) => sessionMetrics(record)));
console.log(`  sessionMetrics   ${fmt(records.length / scoring)} sessions/s`);
const [, generation] = seconds(() => {
  for (let seed = 0; seed < 2000; seed++) generateStream(seed, DEFAULT_STREAM_CONFIG);
});
console.log(`  generateStream   ${fmt(2000 / generation)} full streams/s (instances, covers, gold answers, hash)`);

console.log(`\nAppendix A, prior expectation: Dirichlet(1), T=60, B=3, ${STREAMS} streams (seeds 0..${STREAMS - 1}):`);
const dirichlet: StreamPrior = { kind: 'dirichlet', alpha: 1, classCount: 8, length: 60 };
let total = 0;
for (const k of [1, 2, 3]) total += appendixRun(dirichlet, { name: 'commit-at-k', k });
console.log(`\nAppendix A, the benchmark's realized generator, ${STREAMS} streams:`);
const benchmark: StreamPrior = { kind: 'benchmark', config: DEFAULT_STREAM_CONFIG };
for (const k of [1, 2]) total += appendixRun(benchmark, { name: 'commit-at-k', k });
console.log(`\nBoth simulations together: ${total.toFixed(2)} s (target under 5 s)`);

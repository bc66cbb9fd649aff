/*
 * Orchestration cost: the full 24-seed R0–R2 panel (72 sessions) with a policy
 * agent through the embedded Temporal server, next to the in-process core on
 * the same panel. Prints wall time, turns per second, the per-turn overhead,
 * where a turn's time goes (from the sessions' histories), the bytes persisted
 * per session, the CPU time of this process and its children (the dev
 * server), and the peak memory of the process and the dev server against
 * what an idle dev server and a worker with no sessions hold (measured first,
 * in a child process: `--idle`). Targets: the 72-session panel in under 60 s,
 * its peak memory at most 1.3 times the idle pair's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FAMILY_NAMES } from '../core/families/family.js';
import { runSession } from '../core/session/run-session.js';
import { generateStream } from '../core/stream/generate-stream.js';
import { sessionKey } from '../core/sweep/session-spec.js';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { parsePolicyAgent } from '../activities/providers/policy-provider.js';
import { runLayout } from '../run-store/run-layout.js';
import { readTranscriptFile } from '../run-store/fs-run-store.js';
import { runOnTemporal } from '../client/sweep-on-temporal.js';
import { startDevServer } from '../infra/dev-server.js';
import { freeServerPort } from '../infra/ports.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { createWorkers, runWorkers } from '../workers/create-workers.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { quantileOf } from '../analysis/stats/percentile.js';
import { cpuSeconds, peakRssMiB, sampleServerPeak } from '../infra/process-stats.js';
import { readWorkflowHistories } from './workflow-histories.js';

/** An idle dev server and a worker with no sessions (the panel's window of slots), for a few seconds: their peak memory, MiB. */
async function idlePeak(window: number): Promise<{ process: number; server: number }> {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'allocbench-idle-')), 'dev.sqlite');
  const server = await startDevServer({ dbFile, port: await freeServerPort() });
  const serverPeak = sampleServerPeak(dbFile);
  installQuietRuntime();
  const connection = await NativeConnection.connect({ address: server.address });
  const workers = await createWorkers({ connection, namespace: 'default', sessions: true, sessionSlots: window, providers: [] });
  await runWorkers(workers, sleep(3000));
  await connection.close();
  await shutdownRuntime();
  const peak = { process: peakRssMiB(), server: serverPeak() };
  await server.stop();
  return peak;
}

if (process.argv[2] === '--idle') {
  process.stdout.write(`${JSON.stringify(await idlePeak(Number(process.argv[3])))}\n`);
  process.exit(0);
}

const window = Number(process.argv[2] ?? 8);
// With this process's node flags (package.json), in a fresh process: what holds before any session.
const idleRun = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--idle', String(window)], {
  encoding: 'utf8',
});
const idle = JSON.parse(idleRun.stdout.trim().split('\n').at(-1) ?? '{}') as { process: number; server: number };
const config = parseSweepConfig({ name: 'bench', models: ['policy/commit-at-2'], rungs: ['R0', 'R1', 'R2'], window });
const specs = expandSweep(config);

// In process: the same sessions through the core's engine, streams generated as the activities do.
const policy = parsePolicyAgent('commit-at-2').policy;
const started = performance.now();
let inProcessTurns = 0;
for (const spec of specs) {
  const classes = generateStream(spec.seed, spec.stream).items.map((item) => FAMILY_NAMES.indexOf(item.family));
  inProcessTurns += runSession(classes, { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length }, policy).decisions
    .length;
}
const inProcessSeconds = (performance.now() - started) / 1000;

// Through Temporal: a fresh run directory and embedded server, as `allocbench sweep` runs it.
delete process.env.TEMPORAL_ADDRESS;
const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-bench-')), 'panel');
const serverPeak = sampleServerPeak(join(runLayout.temporal(runDir), 'dev.sqlite'));
const cpuBefore = cpuSeconds();
const wallStart = performance.now();
const progress = await runOnTemporal(config, {
  runDir,
  temporalPort: await freeServerPort(),
  inProcessWorkers: true,
  onProgress: undefined,
  say: () => undefined,
});
const wallSeconds = (performance.now() - wallStart) / 1000;
const cpuAfter = cpuSeconds();
const peakMiB = { process: peakRssMiB(), server: serverPeak() };

// From the transcripts: when the first session started and the last ended, and the gaps between a session's turns.
let first = Infinity;
let last = 0;
const gaps: number[] = [];
let turns = 0;
let transcriptBytes = 0;
for (const spec of specs) {
  transcriptBytes += statSync(runLayout.transcript(runDir, spec)).size;
  const transcript = await readTranscriptFile(runLayout.transcript(runDir, spec));
  const times = transcript.records.map((r) => Date.parse(r.at));
  first = Math.min(first, ...times);
  last = Math.max(last, ...times);
  const turnTimes = transcript.turns.map((turn) => Date.parse(turn.at));
  turnTimes.slice(1).forEach((time, i) => gaps.push(time - (turnTimes[i] as number)));
  turns += transcript.turns.length;
}
const sweepSeconds = (last - first) / 1000;
const median = quantileOf(gaps, 0.5);
const p90 = quantileOf(gaps, 0.9);

console.log(`Temporal panel benchmark · node ${process.version} · policy/commit-at-2 · 24 seeds x R0, R1, R2 · window ${window}`);
console.log(`  sessions finished        ${progress.finished}/${progress.total} (${turns} decision turns)`);
console.log(
  `  wall time                ${wallSeconds.toFixed(1)} s (target under 60 s), of which sessions ${sweepSeconds.toFixed(1)} s and start-up/shutdown ${(wallSeconds - sweepSeconds).toFixed(1)} s`,
);
console.log(`  through Temporal         ${(turns / sweepSeconds).toFixed(1)} turns/s`);
console.log(
  `  in-process core          ${(inProcessTurns / inProcessSeconds).toFixed(0)} turns/s (${inProcessSeconds.toFixed(3)} s, stream generation included)`,
);
console.log(`  per-turn latency         median ${median.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms between a session's consecutive turns`);
console.log(
  `  orchestration per turn   ${((sweepSeconds * 1000) / turns - (inProcessSeconds * 1000) / inProcessTurns).toFixed(1)} ms of wall time per turn at window ${window}`,
);
console.log(`  run directory            ${runDir}`);

// Where a turn's time goes, and what is persisted: the sessions' histories from the run's SQLite file.
const histories = [
  ...(
    await readWorkflowHistories(
      join(runLayout.temporal(runDir), 'dev.sqlite'),
      specs.map((spec) => `${sweepWorkflowId(config)}/${sessionKey(spec)}`),
    )
  ).values(),
];
const steps = histories.flatMap((history) => history.steps);
const historyBytes = histories.reduce((sum, history) => sum + history.bytes, 0);
const historyEvents = histories.reduce((sum, history) => sum + history.events, 0);
const msOf = (pick: (step: (typeof steps)[number]) => number) => `${quantileOf(steps.map(pick), 0.5).toFixed(1)} ms`;
const eventsOf = (type: string) => histories.reduce((sum, history) => sum + (history.byType.get(type)?.events ?? 0), 0);
if (steps.length > 0)
  console.log(
    `  where a turn goes        median per turn: workflow task ${msOf((s) => s.workflowTaskMs)}, model activity dispatch ${msOf((s) => s.dispatchMs)}, ` +
      `model activity run ${msOf((s) => s.activityMs)} (the reply, run-store reads and writes, the records)`,
  );
else
  console.log(
    `  where a turn goes        the reference agent's calls ran as local activities: ${eventsOf('MARKER_RECORDED')} calls in ` +
      `${eventsOf('WORKFLOW_TASK_COMPLETED')} workflow tasks, no activity task round trips`,
  );
console.log(
  `  persisted per session    ${(historyBytes / specs.length / 1024).toFixed(1)} KiB of Temporal history (${(historyEvents / specs.length).toFixed(0)} events), ` +
    `${(transcriptBytes / specs.length / 1024).toFixed(1)} KiB of transcript, for ${(turns / specs.length).toFixed(1)} turns`,
);
console.log(
  `  CPU                      ${(cpuAfter.self - cpuBefore.self).toFixed(1)} s this process (workers in process), ` +
    `${(cpuAfter.children - cpuBefore.children).toFixed(1)} s its children (dev server, sandbox worker)`,
);
const peak = peakMiB.process + peakMiB.server;
const idleSum = idle.process + idle.server;
console.log(
  `  peak memory              ${peak.toFixed(0)} MiB: ${peakMiB.process.toFixed(0)} this process, ` +
    `${peakMiB.server.toFixed(0)} the dev server (resident, sampled every 250 ms)`,
);
console.log(
  `  against idle             an idle dev server ${idle.server.toFixed(0)} MiB + a worker with no sessions ${idle.process.toFixed(0)} MiB = ${idleSum.toFixed(0)} MiB; ` +
    `the panel's peak ${(peak / idleSum).toFixed(2)}× (target at most 1.3×, ${(1.3 * idleSum).toFixed(0)} MiB: ${peak <= 1.3 * idleSum ? 'met' : 'NOT met'})`,
);

/*
 * What each run store costs: the 72-session bench panel (24 seeds x R0, R1,
 * R2, a policy agent, the embedded Temporal server, workers in this process)
 * on a directory and on a local S3-compatible server (moto, on loopback).
 * Prints turns per second and, on S3, the requests per decision turn by kind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { runOnTemporal } from '../client/sweep-on-temporal.js';
import { freePort } from '../infra/ports.js';
import { startS3Server } from '../infra/s3-server.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { objectRequests } from '../run-store/s3-objects.js';

const window = Number(process.argv[2] ?? 8);
const config = parseSweepConfig({ name: 'bench', models: ['policy/commit-at-2'], rungs: ['R0', 'R1', 'R2'], window });
const specs = expandSweep(config);
delete process.env.TEMPORAL_ADDRESS;

async function panelOn(location: string): Promise<{ seconds: number; turns: number; finished: number }> {
  const started = performance.now();
  const progress = await runOnTemporal(config, {
    runDir: location,
    temporalPort: await freePort(),
    inProcessWorkers: true,
    onProgress: undefined,
    say: () => undefined,
  });
  const seconds = (performance.now() - started) / 1000;
  const store = openRunStore(location);
  let turns = 0;
  for (const spec of specs) turns += (await store.readTranscript(spec)).turns.length;
  return { seconds, turns, finished: progress.finished };
}

const disk = await panelOn(join(mkdtempSync(join(tmpdir(), 'allocbench-store-bench-')), 'panel'));
const server = await startS3Server();
try {
  const bucket = await server.bucket('store-bench');
  const before = { ...objectRequests };
  const s3 = await panelOn(`${bucket}/panel`);
  const used = Object.fromEntries(Object.entries(objectRequests).map(([kind, n]) => [kind, n - before[kind as keyof typeof before]]));
  const total = Object.values(used).reduce((sum, n) => sum + n, 0);
  console.log(`Run store benchmark · node ${process.version} · policy/commit-at-2 · 24 seeds x R0, R1, R2 · window ${window}`);
  for (const [name, run] of [
    ['disk', disk],
    ['s3 (moto, loopback)', s3],
  ] as const)
    console.log(
      `  ${name.padEnd(22)} ${run.finished}/${specs.length} sessions, ${run.turns} turns in ${run.seconds.toFixed(1)} s: ${(run.turns / run.seconds).toFixed(1)} turns/s (start-up and shutdown included)`,
    );
  console.log(
    `  s3 requests            ${total} in all, ${(total / s3.turns).toFixed(2)} per turn: ` +
      Object.entries(used)
        .map(([kind, n]) => `${kind} ${(n / s3.turns).toFixed(2)}`)
        .join(', ') +
      ' (the summary, stream and lock requests of a session spread over its turns)',
  );
} finally {
  await server.stop();
}

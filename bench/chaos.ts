/*
 * Chaos: a sweep of reference-policy agents with injected transport faults,
 * run once undisturbed and then again with its workers killed (SIGKILL) every
 * few seconds and its Temporal server restarted, compared session by session.
 * Prints sessions finished, identical to the undisturbed run, model calls paid
 * twice (a reply the agent served twice for one call and attempt, counted by
 * the agent itself) and records duplicated in the transcripts. A call whose
 * first reply was served less than IN_FLIGHT_MS before a kill was in flight at
 * it (served, not yet recorded): paying it again is the price of the kill.
 * Target: all identical, no call paid twice but those in flight at a kill,
 * none duplicated, in both modes:
 *
 *   embedded  `allocbench sweep` with its own dev server; the command (the
 *             workers' process) is killed and started again, which restarts
 *             the server each time (the next command stops the orphaned one)
 *   external  a separately started dev server, `allocbench sweep --no-worker`
 *             and two `allocbench worker` processes; a worker is killed and
 *             replaced every few seconds, the server restarted once midway
 *
 * With `--store s3` both runs live on a real S3 server on loopback (moto,
 * npm run s3:setup) instead of on disk.
 *
 * Usage: npm run bench:chaos [-- embedded|external] [--seeds 2000-2007] [--kill-every 4] [--store disk|s3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { SERVED_LOG_VARIABLE } from '../activities/providers/policy-provider.js';
import { openRunStore } from '../run-store/open-run-store.js';
import type { SessionSummary } from '../run-store/session-summary.js';
import { startDevServer, type DevServer } from '../infra/dev-server.js';
import { freePort, freeServerPort } from '../infra/ports.js';
import { startS3Server } from '../infra/s3-server.js';
import { cliPath } from '../infra/project-root.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seeds: { type: 'string', default: '2000-2007' },
    'kill-every': { type: 'string', default: '4' },
    store: { type: 'string', default: 'disk' },
  },
});
if (values.store !== 'disk' && values.store !== 's3') throw new Error(`--store: expected disk or s3, got '${values.store}'`);
const modes = positionals.length > 0 ? positionals : ['embedded', 'external'];
const killEverySeconds = Number(values['kill-every']);
/** How long after its serving a reply may still be on its way into the run store (an activity's result, a record written). */
const IN_FLIGHT_MS = 1000;

const main = cliPath();
const work = mkdtempSync(join(tmpdir(), 'allocbench-chaos-'));
const s3 = values.store === 's3' ? await startS3Server() : undefined;
const bucket = s3 ? await s3.bucket('chaos') : undefined;
/** Where a run lives: under the bench's temp directory, or in the bucket. */
const runLocation = (name: string) => (bucket ? `${bucket}/${name}` : join(work, name, 'run'));

// Two agents with transport faults at a few turns (each retried, as the rerun rules allow), on the decision rungs and R3.
const sweep = {
  name: 'chaos',
  models: ['policy/commit-at-2?delay=30&transport=3x1,11x2', 'policy/eager?delay=30&transport=5x2,20x1'],
  rungs: ['R0', 'R1', 'R2', 'R3'],
  seeds: values.seeds,
  window: 8,
  heartbeatSeconds: 2,
};
const sweepFile = join(work, 'chaos.json');
writeFileSync(sweepFile, JSON.stringify(sweep));
const specs = expandSweep(parseSweepConfig(sweep));

/** A CLI process of its own group, its output kept. */
function cli(args: readonly string[], env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--no-node-snapshot', main, ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: '', ...s3?.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  return Object.assign(child, { output: () => output });
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/** SIGKILL to one process: no shutdown hook runs, as when a machine or a container goes. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await exited(child);
}

/** SIGKILL to a process and everything it started (what is left of a killed worker: its sandbox process). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Somewhere between half and one and a half times the kill interval. */
const nextKill = () => killEverySeconds * 1000 * (0.5 + Math.random());

/** What a chaos run did: when each kill came (ms since the epoch), and how often the server restarted. */
interface Faults {
  readonly killTimes: readonly number[];
  readonly serverRestarts: number;
}

/** Runs the sweep command until it exits 0, killing it every few seconds. */
async function embeddedChaos(runDir: string, env: Record<string, string>): Promise<Faults> {
  const port = String(await freeServerPort());
  const killTimes: number[] = [];
  for (;;) {
    const child = cli(['sweep', sweepFile, '--out', runDir, '--temporal-port', port, '--json'], env);
    // Killed a few seconds after its server is up and its workers start, not while it is still starting.
    const killed = (async () => {
      while (!child.output().includes('Temporal Web UI')) await sleep(50);
      await sleep(nextKill());
      return 'kill' as const;
    })();
    const ended = await Promise.race([exited(child), killed]);
    if (ended === 'kill') {
      killTimes.push(Date.now());
      await kill(child);
      continue;
    }
    if (ended !== 0) throw new Error(`the sweep exited ${ended}: ${child.output()}`);
    return { killTimes, serverRestarts: killTimes.length };
  }
}

async function externalChaos(runDir: string, env: Record<string, string>): Promise<Faults> {
  const dbFile = join(work, 'external-server.sqlite');
  const port = await freePort();
  let server: DevServer = await startDevServer({ dbFile, port, uiPort: await freePort() });
  const cluster = { ...env, TEMPORAL_ADDRESS: server.address };
  const worker = () => cli(['worker', '--concurrency', '8'], cluster);
  const workers = [worker(), worker()];
  const killTimes: number[] = [];
  let serverRestarts = 0;
  let done = false;
  const client = (async () => {
    // The client only waits; if the server restart cuts it off, it attaches again.
    for (;;) {
      const child = cli(['sweep', sweepFile, '--out', runDir, '--no-worker', '--json'], cluster);
      const code = await exited(child);
      if (code === 0) return;
      if (code === 3 || code === 2) throw new Error(`the sweep exited ${code}: ${child.output()}`);
      await sleep(500);
    }
  })().finally(() => (done = true));
  const started = Date.now();
  while (!done) {
    await Promise.race([client.catch(() => undefined), sleep(nextKill())]);
    if (done) break;
    const index = Math.floor(Math.random() * workers.length);
    const victim = workers[index] as ChildProcess;
    killTimes.push(Date.now());
    await kill(victim);
    killGroup(victim);
    workers[index] = worker();
    if (serverRestarts === 0 && Date.now() - started > 15_000) {
      await server.stop();
      server = await startDevServer({ dbFile, port, uiPort: await freePort() });
      serverRestarts++;
    }
  }
  await client;
  for (const child of workers) {
    child.kill('SIGTERM');
    await exited(child);
  }
  await server.stop();
  return { killTimes, serverRestarts };
}

/** What a session measured: everything in its summary but the time it finished. */
const measured = (summary: SessionSummary) => JSON.stringify({ ...summary, finishedAt: undefined });

/**
 * Calls the agent served more than once (the same session, turn, call and
 * attempt), each with how long before the next kill its first reply was served.
 */
function paidTwice(servedLog: string, killTimes: readonly number[]): { readonly call: string; readonly msBeforeKill: number }[] {
  if (!existsSync(servedLog)) return [];
  const served = new Map<string, { first: number; count: number }>();
  for (const line of readFileSync(servedLog, 'utf8').split('\n').filter(Boolean)) {
    const fields = line.split('\t');
    const call = fields.slice(0, 4).join(' ');
    const at = Number(fields[4]);
    const seen = served.get(call);
    served.set(call, { first: Math.min(seen?.first ?? at, at), count: (seen?.count ?? 0) + 1 });
  }
  return [...served]
    .filter(([, { count }]) => count > 1)
    .map(([call, { first }]) => ({ call, msBeforeKill: Math.min(...killTimes.filter((k) => k >= first).map((k) => k - first)) }));
}

/** Transcript records that say the same thing twice: a turn recorded twice, or an attempt. */
async function duplicatedRecords(runDir: string, spec: SessionSpec): Promise<number> {
  const records = await openRunStore(runDir).readTranscriptRecords(spec);
  const seen = new Set<string>();
  let duplicated = 0;
  let epoch = 0; // a replacement run (a resume after a mechanical failure) may record a turn again
  for (const record of records) {
    if (record.type === 'resume') epoch++;
    // One record per turn, per R3 model call and per script run; an R3 problem (t) has many of the last two.
    const key =
      record.type === 'attempt'
        ? `${epoch} attempt ${record.t} ${record.attempt}`
        : record.type === 'loop-step'
          ? `${epoch} loop-step ${record.call}`
          : record.type === 'execution'
            ? `${epoch} execution ${record.call}:${record.index}`
            : record.type === 'turn'
              ? `${epoch} turn ${record.t}`
              : undefined;
    if (key === undefined) continue;
    if (seen.has(key)) duplicated++;
    seen.add(key);
  }
  return duplicated;
}

async function compare(mode: string, runDir: string, baseline: Map<string, string>) {
  let finished = 0;
  let identical = 0;
  let duplicated = 0;
  const differing: string[] = [];
  for (const spec of specs) {
    const summary = await openRunStore(runDir).readSummary(spec);
    if (!summary) continue;
    finished++;
    if (measured(summary) === baseline.get(sessionKey(spec))) identical++;
    else differing.push(sessionKey(spec));
    duplicated += await duplicatedRecords(runDir, spec);
  }
  return { mode, finished, identical, duplicated, differing };
}

console.log(
  `Chaos benchmark · node ${process.version} · runs on ${values.store} · ${specs.length} sessions (${sweep.models.length} agents × ${sweep.rungs.join(', ')} × seeds ${sweep.seeds}) · a kill every ${killEverySeconds} s or so`,
);
const baseDir = runLocation('undisturbed');
const baseStarted = Date.now();
const base = cli(['sweep', sweepFile, '--out', baseDir, '--temporal-port', String(await freeServerPort()), '--json'], {});
const baseCode = await exited(base);
if (baseCode !== 0) throw new Error(`the undisturbed sweep exited ${baseCode}: ${base.output()}`);
const baseline = new Map<string, string>();
for (const spec of specs) {
  const summary = await openRunStore(baseDir).readSummary(spec);
  if (summary) baseline.set(sessionKey(spec), measured(summary));
}
console.log(`  undisturbed              ${baseline.size}/${specs.length} sessions in ${((Date.now() - baseStarted) / 1000).toFixed(1)} s`);

let failed = false;
for (const mode of modes) {
  const runDir = runLocation(mode);
  const servedLog = join(work, `${mode}-served.log`);
  const env = { [SERVED_LOG_VARIABLE]: servedLog };
  const started = Date.now();
  const chaos = mode === 'embedded' ? await embeddedChaos(runDir, env) : await externalChaos(runDir, env);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const result = await compare(mode, runDir, baseline);
  const paid = paidTwice(servedLog, chaos.killTimes);
  const inFlight = paid.filter((call) => call.msBeforeKill <= IN_FLIGHT_MS);
  const met =
    result.finished === specs.length && result.identical === specs.length && inFlight.length === paid.length && result.duplicated === 0;
  failed ||= !met;
  console.log(
    `  ${mode.padEnd(9)}                ${seconds} s, ${chaos.killTimes.length} kills (SIGKILL), server restarted ${chaos.serverRestarts} times`,
  );
  console.log(`    sessions finished      ${result.finished}/${specs.length}`);
  console.log(
    `    identical              ${result.identical}/${specs.length}${result.differing.length > 0 ? ` (differ: ${result.differing.join(', ')})` : ''}`,
  );
  console.log(
    `    calls paid twice       ${paid.length}${paid.length > 0 ? `, ${inFlight.length} in flight at a kill (first served ${paid.map((call) => (Number.isFinite(call.msBeforeKill) ? `${call.msBeforeKill} ms` : 'no kill after')).join(', ')} before it)` : ''}`,
  );
  console.log(`    records duplicated     ${result.duplicated}`);
  console.log(`    target                 ${met ? 'met' : 'NOT met'}`);
}
console.log(`  run directories          ${bucket ?? work}`);
await s3?.stop();
process.exitCode = failed ? 1 : 0;

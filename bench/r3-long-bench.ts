/*
 * A long R3 session: one agent-loop session of about 500 model calls (the
 * whole 60-problem stream, `r3: {end: stream-end}`, no token cap) against a
 * scripted OpenAI-compatible model on a loopback HTTP server in this process,
 * which answers every request after a fixed latency. Run as `allocbench sweep`
 * runs it: the embedded dev server and in-process workers (the sandbox worker
 * in its own process). Prints the orchestration time per call (from the
 * loopback sending reply k to receiving request k + 1) near the start and near
 * call 450 and per 50-call window, the session's workflow history (bytes and
 * events, over every run of its continue-as-new chain), peak RSS and wall
 * time. Targets: orchestration at call 450 at most 1.5× that at call 10;
 * history under 1 MB per session.
 *
 * Usage: npm run bench:r3-long [-- <calls, default 500> <latency ms, default 20>]
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sessionKey } from '../core/sweep/session-spec.js';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { readJsonIfExists } from '../run-store/json-files.js';
import { runLayout } from '../run-store/run-layout.js';
import type { SessionSummary } from '../run-store/session-summary.js';
import { runOnTemporal } from '../client/sweep-on-temporal.js';
import { freePort } from '../infra/ports.js';
import { descendantsResidentKiB } from '../infra/process-stats.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { quantileOf } from '../analysis/stats/percentile.js';
import { readWorkflowHistories } from './workflow-histories.js';
import { scriptedCompletion, scriptedLoopCall, type WireMessage } from './scripted-loop-model.js';

const targetCalls = Number(process.argv[2] ?? 500);
const latencyMs = Number(process.argv[3] ?? 20);
if (!Number.isInteger(targetCalls) || targetCalls < 1) throw new Error(`calls: expected a positive integer, got ${process.argv[2]}`);
if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`latency: expected milliseconds, got ${process.argv[3]}`);

/** Writes the scripted model makes (the session's budget B): on the first problems of this many families. */
const WRITES = 3;
const MODEL = 'bench';

/** One chat request as the loopback saw it: when it arrived, when its reply went out, its size, the tool it answered with. */
interface Exchange {
  readonly receivedAt: number;
  sentAt: number;
  readonly bytes: number;
  readonly tool: string;
}

const exchanges: Exchange[] = [];

function chatReply(body: { messages?: WireMessage[] }) {
  const call = scriptedLoopCall(body.messages ?? [], { calls: targetCalls, writes: WRITES });
  return { tool: call.name, json: scriptedCompletion(call, exchanges.length + 1, MODEL) };
}

function handle(req: IncomingMessage, res: ServerResponse) {
  const receivedAt = performance.now();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const send = (json: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'GET' && req.url?.endsWith('/models')) return send({ object: 'list', data: [{ id: MODEL, object: 'model' }] });
    const raw = Buffer.concat(chunks);
    let reply: ReturnType<typeof chatReply>;
    try {
      reply = chatReply(JSON.parse(raw.toString()) as { messages?: WireMessage[] });
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error), type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const exchange: Exchange = { receivedAt, sentAt: NaN, bytes: raw.length, tool: reply.tool };
    exchanges.push(exchange);
    setTimeout(() => {
      exchange.sentAt = performance.now();
      send(reply.json);
    }, latencyMs);
  });
}

// ---------------------------------------------------------------------------
// Peak RSS: this process (workers in process) and its children (the sandbox worker, the dev server).

let peakRss = process.memoryUsage().rss;
let peakChildrenRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  peakChildrenRss = Math.max(peakChildrenRss, 1024 * descendantsResidentKiB(process.pid));
}, 100);
sampler.unref();

// ---------------------------------------------------------------------------
// The session.

const server = createServer(handle);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };

const config = parseSweepConfig({
  name: 'r3-long',
  models: [`openai-compatible/${MODEL}@http://127.0.0.1:${port}/v1`],
  rungs: ['R3'],
  seeds: [2000],
  budgets: [WRITES],
  r3: { end: 'stream-end' },
  tokenCap: null,
  window: 1,
});
const [spec] = expandSweep(config);
if (!spec) throw new Error('empty sweep');

delete process.env.TEMPORAL_ADDRESS;
const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-r3-long-')), 'run');
const wallStart = performance.now();
let progress: Awaited<ReturnType<typeof runOnTemporal>>;
try {
  progress = await runOnTemporal(config, {
    runDir,
    temporalPort: await freePort(),
    inProcessWorkers: true,
    onProgress: undefined,
    say: () => undefined,
  });
} finally {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
const wallSeconds = (performance.now() - wallStart) / 1000;
peakRss = Math.max(peakRss, process.memoryUsage().rss);
clearInterval(sampler);

// ---------------------------------------------------------------------------
// The session's workflow history: its dev server again on the run's SQLite file, every run of the chain.

const workflowId = `${sweepWorkflowId(config)}/${sessionKey(spec)}`;
const history = (await readWorkflowHistories(join(runLayout.temporal(runDir), 'dev.sqlite'), [workflowId])).get(workflowId);
if (!history) throw new Error(`no history for ${workflowId}`);
const stepTimings = history.steps;

// ---------------------------------------------------------------------------
// Figures.

// Every exchange, for a closer look (times in ms since the process started).
writeFileSync(join(runDir, '..', 'exchanges.json'), JSON.stringify(exchanges));
const summary = await readJsonIfExists<SessionSummary>(runLayout.summary(runDir, spec));
const transcriptBytes = statSync(runLayout.transcript(runDir, spec)).size;
const calls = exchanges.length;
/** gaps[k - 1]: orchestration after reply k, until request k + 1 arrived (k = 1 … calls − 1). */
const gaps = exchanges.slice(1).map((next, i) => next.receivedAt - (exchanges[i] as Exchange).sentAt);
const median = (values: readonly number[]) => quantileOf(values, 0.5);
/** Gaps after replies from..to (1-based, inclusive). */
const gapsAfter = (from: number, to: number) => gaps.slice(from - 1, to);
const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)} ms`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const early = median(gapsAfter(5, 15));
const lateCentre = Math.min(450, gaps.length - 5);
const late = median(gapsAfter(lateCentre - 5, lateCentre + 5));
const ratio = late / early;

console.log(`R3 long-session benchmark · node ${process.version} · ${targetCalls} calls asked · model latency ${latencyMs} ms · seed 2000`);
console.log(
  `  session                  ${summary?.termination ?? 'no summary'}, ${calls} calls made (${summary?.script?.metrics.modelCalls ?? '?'} in the summary), ` +
    `${summary?.script?.metrics.playedTurns ?? '?'} problems, ${summary?.script?.metrics.scriptRuns ?? '?'} script runs, ` +
    `${summary?.script?.metrics.answeredCorrectly ?? '?'} answered correctly; sweep finished ${progress.finished}/${progress.total}`,
);
console.log(`  wall time                ${wallSeconds.toFixed(1)} s (dev server start and stop included)`);
if (exchanges.length > 0) {
  const first = exchanges[0] as Exchange;
  const last = exchanges.at(-1) as Exchange;
  const sessionSeconds = (last.sentAt - first.receivedAt) / 1000;
  console.log(
    `  session time             ${sessionSeconds.toFixed(1)} s from the first request to the last reply: ${((sessionSeconds * 1000) / calls).toFixed(1)} ms per call, ${latencyMs} ms of it the model's`,
  );
}
console.log(
  `  orchestration per call   ${ms(early)} at call 10 (median of 5–15), ${ms(late)} at call ${lateCentre} (median of ${lateCentre - 5}–${lateCentre + 5}): ` +
    `${ratio.toFixed(2)}× (target ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'NOT met'})`,
);
const around = (call: number, pick: (timing: { dispatchMs: number; activityMs: number }) => number) =>
  median(stepTimings.slice(Math.max(0, call - 6), call + 5).map(pick));
console.log(
  `  where it goes            the activity's own work less the model's ${latencyMs} ms: ${ms(around(10, (t) => t.activityMs) - latencyMs)} at call 10, ` +
    `${ms(around(lateCentre, (t) => t.activityMs) - latencyMs)} at call ${lateCentre}; the server's dispatch of the activity ` +
    `${ms(around(10, (t) => t.dispatchMs))} and ${ms(around(lateCentre, (t) => t.dispatchMs))}`,
);
console.log('  per 50-call window       after replies   median   (no script run)       p90    request body at its end');
for (let from = 1; from <= gaps.length; from += 50) {
  const to = Math.min(from + 49, gaps.length);
  const window = gapsAfter(from, to);
  const withoutRuns = window.filter((_, i) => (exchanges[from - 1 + i] as Exchange).tool !== 'run_script');
  const bytes = (exchanges[to] as Exchange | undefined)?.bytes ?? 0;
  console.log(
    `                           ${`${from}–${to}`.padEnd(13)} ${ms(median(window)).padStart(9)} ${ms(median(withoutRuns)).padStart(14)} ${ms(quantileOf(window, 0.9)).padStart(13)}    ${(bytes / 1024).toFixed(0)} KiB`,
  );
}
console.log(
  `  workflow history         ${(history.bytes / 1024).toFixed(1)} KiB (${(history.bytes / calls).toFixed(0)} B per call), ${history.events} events ` +
    `over ${history.runs} run(s) of the continue-as-new chain, the largest ${(history.largestRunBytes / 1024).toFixed(1)} KiB ` +
    `(target under 1 MB: ${history.bytes < 1_000_000 ? 'met' : 'NOT met'})`,
);
const heaviest = [...history.byType.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 4);
for (const [type, { events, bytes }] of heaviest)
  console.log(
    `                           ${type.padEnd(34)} ${String(events).padStart(5)} events ${(bytes / 1024).toFixed(1).padStart(8)} KiB`,
  );
console.log(
  `  peak RSS                 ${mb(peakRss)} this process (workers in process); ${mb(peakChildrenRss)} its child processes (sandbox worker, dev server)`,
);
console.log(
  `  transcript               ${(transcriptBytes / 1024).toFixed(0)} KiB (each model call reads only the lines appended since the previous one)`,
);
console.log(`  workflow id              ${workflowId}`);
console.log(`  run directory            ${runDir} (every exchange's times in ../exchanges.json)`);

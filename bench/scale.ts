/*
 * Scale on one machine (npm run bench:scale [-- <windows, default 8,32,128,512> <latency ms, default 1000> <policy-path-only windows, default 2048>];
 * an empty list runs none of its rows, so `-- '' 1000 ''` prints only the fits):
 * how close `window: N` comes to N sessions truly in flight. Each sweep runs
 * N sessions of R0 on streams truncated to LENGTH items, every item a
 * decision turn answered after the latency, through the embedded Temporal
 * server as `allocbench sweep` runs it — on the policy path (a reference
 * agent with that delay, its calls local activities) and on the provider path
 * (a loopback OpenAI-compatible server in its own process); then the
 * policy-path-only windows (the stretch: 2,048).
 * The limit is N ÷ latency turns per second; printed per run: turns/s and its
 * share of the limit against the target (95% up to window 128 on both paths,
 * 90% at 512 on the policy path, 80% beyond), how long the sessions took to start (target
 * 1.5 s at 512 on the policy path: first transcript record to last; in
 * brackets the same by the server's start of their workflows; beside it, how
 * long 512 bare workflows take to begin on this machine, measured in the same
 * run: the floor under that spread), where the rest of the limit went (read
 * from the transcripts: the ramp, the first turn, between turns, the tail),
 * CPU per turn (this process, its main thread, the dev server), the
 * workflow-task latency from the sessions' histories, how many workflow tasks
 * timed out (target: none) and how many warnings the Temporal SDK logged, the peak memory of the
 * process and of the dev server, and the machine's load average. Then the CPU
 * per session and per turn, fitted from few and many, short and long sessions
 * with no latency, against the floor a client-started bare workflow costs in
 * the same run (bench/bare-measure.ts; target at most 1.2 times it), and the
 * disk (target 40 KB for a 10-turn session). Each configuration runs in a
 * child process of its own (`--one …`, `--floor`, `--start-floor`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionKey } from '../core/sweep/session-spec.js';
import { parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { runLayout } from '../run-store/run-layout.js';
import { readTranscriptFile } from '../run-store/fs-run-store.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runOnTemporal } from '../client/sweep-on-temporal.js';
import { temporalLog } from '../client/run-temporal.js';
import { freeServerPort } from '../infra/ports.js';
import { installQuietRuntime } from '../infra/temporal-runtime.js';
import { temporalLogProblems } from '../infra/temporal-log.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import { quantileOf } from '../analysis/stats/percentile.js';
import { measureBare, type BareCost } from './bare-measure.js';
import { cpuSeconds, loadAverage, peakRssMiB, sampleServerPeak } from '../infra/process-stats.js';
import { readWorkflowHistories } from './workflow-histories.js';

const LENGTH = 60;
type Path = 'policy' | 'server';

interface Result {
  readonly path: Path;
  readonly window: number;
  readonly latencyMs: number;
  readonly sessions: number;
  readonly turns: number;
  readonly turnsPerSecond: number;
  /** From the first session's start to the last one's: the ramp up, which a run's span includes. */
  readonly startSpreadSeconds: number;
  /** The spread of the server's start of each session's workflow (its history's first event), measured beside startSpreadSeconds. */
  readonly serverStartSpreadSeconds: number;
  /**
   * Where the limit's slot-time went that no call used, as shares of the
   * limit (window × span): slots waiting for their session to start (the
   * ramp), a session's start to its first reply past one latency, the time
   * between consecutive replies past one latency, and slots idle after their
   * session's last turn while others finished (the tail). With the share
   * reached they sum to one. Null without latency.
   */
  readonly lost: { readonly ramp: number; readonly firstTurn: number; readonly between: number; readonly tail: number } | null;
  /** The machine's one-minute load average when the run began and ended (other work on it slows a run). */
  readonly loadAverage: readonly [number, number];
  readonly cpuMsPerTurn: { readonly process: number; readonly main: number; readonly server: number };
  readonly cpuSeconds: { readonly process: number; readonly main: number; readonly server: number };
  readonly workflowTaskMs: { readonly p50: number; readonly p90: number };
  /** Workflow tasks that timed out (from the histories). */
  readonly timedOutTasks: number;
  /** The Temporal SDK's warnings and errors in the run's Temporal log (what a terminal would show without it). */
  readonly sdkWarnings: number;
  readonly dispatchMs: { readonly p50: number; readonly p90: number } | null;
  readonly peakMiB: { readonly process: number; readonly server: number };
  /** A session's Temporal history, on average: events, recorded local-activity results (markers), workflow tasks, bytes. */
  readonly history: { readonly events: number; readonly markers: number; readonly workflowTasks: number; readonly bytes: number };
  /** What the run leaves on disk: the run store's files (sessions, streams, manifest) and Temporal's SQLite file with its WAL. */
  readonly bytes: { readonly runStore: number; readonly temporal: number };
}

/** Last minus first of epoch-ms times, in seconds (0 for none). */
const spreadSeconds = (times: readonly number[]) => (times.length > 0 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0);

/** Bytes of every file under a directory. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name);
    return sum + (entry.isDirectory() ? bytesUnder(path) : statSync(path).size);
  }, 0);
}

async function runOne(path: Path, window: number, latencyMs: number, length: number, url?: string): Promise<Result> {
  const model = path === 'policy' ? `policy/commit-at-99?delay=${latencyMs}` : `openai-compatible/scale@${url}/v1`;
  const config = parseSweepConfig({
    name: `scale-${path}-${window}`,
    models: [model],
    rungs: ['R0'],
    seeds: `9000-${9000 + window - 1}`,
    stream: { length },
    window,
  });
  delete process.env.TEMPORAL_ADDRESS;
  const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-scale-')), 'run');
  const dbFile = join(runLayout.temporal(runDir), 'dev.sqlite');
  const serverPeak = sampleServerPeak(dbFile);
  const loadBefore = loadAverage();
  const before = cpuSeconds();
  await runOnTemporal(config, {
    runDir,
    temporalPort: await freeServerPort(),
    inProcessWorkers: true,
    onProgress: undefined,
    say: () => undefined,
  });
  const after = cpuSeconds();
  const serverPeakMiB = serverPeak();
  const specs = expandSweep(config);
  const loadAfter = loadAverage();
  let [first, lastStart, last, turns] = [Infinity, 0, 0, 0];
  const sessions: { start: number; turnTimes: number[] }[] = [];
  for (const spec of specs) {
    const transcript = await readTranscriptFile(runLayout.transcript(runDir, spec));
    const start = Date.parse(transcript.start?.at ?? '');
    first = Math.min(first, start);
    lastStart = Math.max(lastStart, start);
    const turnTimes = transcript.turns.map((turn) => Date.parse(turn.at));
    last = Math.max(last, ...turnTimes);
    turns += transcript.turns.length;
    sessions.push({ start, turnTimes });
  }
  const slotTime = window * (last - first);
  const lostTo = (part: (session: (typeof sessions)[number]) => number) =>
    sessions.reduce((sum, session) => sum + part(session), 0) / slotTime;
  const lost =
    latencyMs > 0
      ? {
          ramp: lostTo(({ start }) => start - first),
          firstTurn: lostTo(({ start, turnTimes }) => (turnTimes[0] ?? start) - start - latencyMs),
          between: lostTo(({ turnTimes }) => turnTimes.slice(1).reduce((sum, at, i) => sum + at - (turnTimes[i] as number) - latencyMs, 0)),
          tail: lostTo(({ start, turnTimes }) => last - (turnTimes.at(-1) ?? start)),
        }
      : null;
  const histories = [
    ...(
      await readWorkflowHistories(
        dbFile,
        specs.map((spec) => `${sweepWorkflowId(config)}/${sessionKey(spec)}`),
      )
    ).values(),
  ];
  const tasks = histories.flatMap((h) => h.workflowTasks);
  const sdkWarnings = temporalLogProblems(temporalLog(openRunStore(runDir))).filter((problem) => problem.source === 'sdk').length;
  const dispatch = histories.flatMap((h) => h.steps.map((s) => s.dispatchMs));
  const perSession = (count: (h: (typeof histories)[number]) => number) =>
    histories.reduce((sum, h) => sum + count(h), 0) / histories.length;
  const quantiles = (values: number[]) => ({ p50: quantileOf(values, 0.5), p90: quantileOf(values, 0.9) });
  const processCpu = after.self - before.self;
  const mainCpu = after.main - before.main;
  const serverCpu = after.children - before.children;
  return {
    path,
    window,
    latencyMs,
    sessions: specs.length,
    turns,
    turnsPerSecond: turns / ((last - first) / 1000),
    startSpreadSeconds: (lastStart - first) / 1000,
    serverStartSpreadSeconds: spreadSeconds(histories.map((h) => h.startedMs).filter(Number.isFinite)),
    lost,
    loadAverage: [loadBefore, loadAfter],
    cpuMsPerTurn: { process: (1000 * processCpu) / turns, main: (1000 * mainCpu) / turns, server: (1000 * serverCpu) / turns },
    cpuSeconds: { process: processCpu, main: mainCpu, server: serverCpu },
    workflowTaskMs: quantiles(tasks),
    timedOutTasks: histories.reduce((sum, h) => sum + (h.byType.get('WORKFLOW_TASK_TIMED_OUT')?.events ?? 0), 0),
    sdkWarnings,
    dispatchMs: dispatch.length > 0 ? quantiles(dispatch) : null,
    peakMiB: { process: peakRssMiB(), server: serverPeakMiB },
    history: {
      events: perSession((h) => h.events),
      markers: perSession((h) => h.byType.get('MARKER_RECORDED')?.events ?? 0),
      workflowTasks: perSession((h) => h.workflowTasks.length),
      bytes: perSession((h) => h.bytes),
    },
    bytes: { runStore: bytesUnder(runDir) - bytesUnder(runLayout.temporal(runDir)), temporal: bytesUnder(runLayout.temporal(runDir)) },
  };
}

/** Runs one configuration (`--one …`) or a floor (`--floor`, `--start-floor`) in a fresh child process; resolves to its result. */
function child<T = Result>(args: readonly string[]): Promise<T> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    // With this process's node flags (the heap settings the allocbench command runs with, package.json).
    const proc = spawn(process.execPath, [...process.execArgv, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as T) : reject(new Error(`exit ${code}`)),
    );
  });
}

/** The loopback chat server in its own process; resolves to its URL and a stop function. */
async function startChatServer(latencyMs: number): Promise<{ url: string; stop: () => void }> {
  const script = fileURLToPath(new URL('./loopback-chat-server.js', import.meta.url));
  const proc = spawn(process.execPath, [script, String(latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) =>
    proc.stdout.once('data', (chunk: Buffer) => resolve(Number(/port (\d+)/.exec(chunk.toString())?.[1]))),
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.kill() };
}

/** The client-started bare workflows' CPU per workflow in a fresh child (a worker of their own, no benchmark). */
const FLOOR_WORKFLOWS = 512;

if (process.argv[2] === '--one') {
  const [path, window, latency, length, url] = process.argv.slice(3);
  const result = await runOne(path as Path, Number(window), Number(latency), Number(length), url);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
if (process.argv[2] === '--floor' || process.argv[2] === '--start-floor') {
  installQuietRuntime();
  // The CPU floor: started by a client of their own. The start floor: eagerly, by the worker's client, as the keeper starts sessions.
  const shape = process.argv[2] === '--floor' ? 'client' : 'eager';
  process.stdout.write(`${JSON.stringify(await measureBare(shape, FLOOR_WORKFLOWS))}\n`);
  process.exit(0);
}

const windows = (process.argv[2] ?? '8,32,128,512').split(',').filter(Boolean).map(Number);
const latencyMs = Number(process.argv[3] ?? 1000);
const policyOnlyWindows = (process.argv[4] ?? '2048').split(',').filter(Boolean).map(Number);
/** The share of the limit each run should reach: 95% up to window 128 on both paths, 90% at 512 on the policy path, 80% beyond (the stretch). */
const targetShare = (path: Path, window: number) => (window <= 128 ? 0.95 : path === 'policy' ? (window <= 512 ? 0.9 : 0.8) : undefined);
/** How long a run's sessions may take to start: 1.5 s at window 512 on the policy path. */
const targetSpread = (path: Path, window: number) => (path === 'policy' && window === 512 ? 1.5 : undefined);
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
console.log(
  `Scale on one machine · node ${process.version} · ${cpus().length} cores · R0 sessions of ${LENGTH} decision turns` +
    `, ${latencyMs} ms per call, one session per window slot`,
);
if (windows.length + policyOnlyWindows.length > 0)
  console.log(
    'path    window  turns/s  of limit (target)   started over [server] (target)  limit lost to: ramp · first turn · between turns · tail  CPU ms/turn (process [main] + server)  workflow task p50/p90  timed out (target)  SDK warnings  peak MiB (process + server)  load avg',
  );
const row = (r: Result) => {
  const share = r.turnsPerSecond / (r.window / (latencyMs / 1000));
  const target = targetShare(r.path, r.window);
  const spread = targetSpread(r.path, r.window);
  const cpu = r.cpuMsPerTurn;
  const lost = r.lost ? `${pct(r.lost.ramp)} · ${pct(r.lost.firstTurn)} · ${pct(r.lost.between)} · ${pct(r.lost.tail)}` : 'n/a';
  console.log(
    [
      r.path.padEnd(7),
      String(r.window).padStart(6),
      r.turnsPerSecond.toFixed(1).padStart(8),
      `${pct(share)} ${target ? `(${100 * target}%: ${verdict(share >= target)})` : ''}`.padEnd(20),
      `${r.startSpreadSeconds.toFixed(1)} s [${r.serverStartSpreadSeconds.toFixed(1)}] ${spread ? `(${spread} s: ${verdict(r.startSpreadSeconds <= spread)})` : ''}`.padEnd(
        28,
      ),
      lost.padEnd(55),
      `${(cpu.process + cpu.server).toFixed(2)} (${cpu.process.toFixed(2)} [${cpu.main.toFixed(2)}] + ${cpu.server.toFixed(2)})`.padStart(
        38,
      ),
      `${r.workflowTaskMs.p50.toFixed(0)}/${r.workflowTaskMs.p90.toFixed(0)} ms`.padStart(22),
      `${r.timedOutTasks} (0: ${verdict(r.timedOutTasks === 0)})`.padStart(18),
      String(r.sdkWarnings).padStart(12),
      `${(r.peakMiB.process + r.peakMiB.server).toFixed(0)} (${r.peakMiB.process.toFixed(0)} + ${r.peakMiB.server.toFixed(0)})`.padStart(
        28,
      ),
      `${r.loadAverage[0].toFixed(1)} → ${r.loadAverage[1].toFixed(1)}`.padStart(10),
    ].join('  '),
  );
};
const chat = await startChatServer(latencyMs);
try {
  for (const path of ['policy', 'server'] as const) {
    for (const window of windows) row(await child(['--one', path, String(window), String(latencyMs), String(LENGTH), chat.url]));
  }
} finally {
  chat.stop();
}
for (const window of policyOnlyWindows) row(await child(['--one', 'policy', String(window), String(latencyMs), String(LENGTH)]));
if (windows.includes(FLOOR_WORKFLOWS)) {
  const floor = await child<BareCost>(['--start-floor']);
  console.log(
    `The start spread's floor on this machine (${FLOOR_WORKFLOWS} bare workflows, one local activity each, started eagerly by the worker's client, measured now): ` +
      `started over ${floor.startedOverSeconds.toFixed(1)} s, all begun after ${floor.begunOverSeconds?.toFixed(1)} s`,
  );
}

/*
 * CPU and disk per session and per turn: C = fixed + a·sessions + b·turns,
 * from 32 and 160 sessions of 5 turns and 32 of 60, no latency. Each point
 * runs twice and keeps its smaller CPU time: other work on the machine only
 * ever adds to it.
 */
const leastCpu = async (args: string[]) => {
  const [a, b] = [await child(['--one', ...args]), await child(['--one', ...args])];
  const cpu = (r: Result) => r.cpuSeconds.process + r.cpuSeconds.server;
  return cpu(a) <= cpu(b) ? a : b;
};
const points = [
  await leastCpu(['policy', '32', '0', '5']),
  await leastCpu(['policy', '160', '0', '5']),
  await leastCpu(['policy', '32', '0', '60']),
];
function fit(measure: (r: Result) => number) {
  const [small, many, long] = points as [Result, Result, Result];
  const perTurn = (measure(long) - measure(small)) / (long.turns - small.turns);
  const perSession = (measure(many) - measure(small) - perTurn * (many.turns - small.turns)) / (many.sessions - small.sessions);
  return { perSession, perTurn, fixed: measure(small) - perSession * small.sessions - perTurn * small.turns };
}
const cpuFit = fit((r) => 1000 * (r.cpuSeconds.process + r.cpuSeconds.server));
const serverFit = fit((r) => 1000 * r.cpuSeconds.server);
console.log(
  `CPU fit (process + dev server, no latency): ${cpuFit.perSession.toFixed(1)} ms per session (the dev server ${serverFit.perSession.toFixed(1)}) ` +
    `+ ${cpuFit.perTurn.toFixed(2)} ms per turn + ${(cpuFit.fixed / 1000).toFixed(1)} s per run (start-up, shutdown)`,
);
// The floor: a workflow started by a client with one local activity, on a fresh server, the smaller of two runs (as the fit's points).
const floors = [await child<BareCost>(['--floor']), await child<BareCost>(['--floor'])];
const floor = Math.min(...floors.map((f) => f.serverMs + f.processMs));
console.log(
  `CPU per session against the floor (${FLOOR_WORKFLOWS} client-started bare workflows, one local activity each, measured now): ` +
    `${cpuFit.perSession.toFixed(1)} ms against ${floor.toFixed(1)} ms, ${(cpuFit.perSession / floor).toFixed(2)}× (target at most 1.2×: ${verdict(cpuFit.perSession <= 1.2 * floor)})`,
);
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const tenTurns = (disk: ReturnType<typeof fit>) => disk.perSession + 10 * disk.perTurn;
const runStore = fit((r) => r.bytes.runStore);
const temporal = fit((r) => r.bytes.temporal);
for (const [what, disk] of [
  ['run store', runStore],
  ["Temporal's SQLite + WAL", temporal],
] as const) {
  console.log(
    `disk fit, ${what}: ${kb(disk.perSession)} per session + ${kb(disk.perTurn)} per turn (a 10-turn session: ${kb(tenTurns(disk))}) + ${kb(disk.fixed)} per run`,
  );
}
console.log(
  `a 10-turn session on disk (target 40 KB): ${kb(tenTurns(runStore) + tenTurns(temporal))} while the run is under way (${verdict(tenTurns(runStore) + tenTurns(temporal) <= 40_000)}), ` +
    `${kb(tenTurns(runStore))} once it completed and temporal/ is removed (${verdict(tenTurns(runStore) <= 40_000)})`,
);

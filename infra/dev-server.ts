import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { InputError } from '../core/errors.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../protocol/search-attributes.js';
import { DEFAULT_TEMPORAL_PORT, freeServerPort, portIsFree, UI_OFFSET } from './ports.js';
import { appendTemporalLog } from './temporal-log.js';
import { temporalCliPath } from './temporal-cli.js';

/** The embedded default: the Temporal CLI's dev server, persisted to a SQLite file in the run directory. */
export interface DevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  /** Temporal's default port (or its Web UI's) that another process held, so that the server took free ports instead. */
  readonly defaultPortTaken?: number;
  /** Stops it gracefully: its state is kept for the next command on the run. */
  stop(): Promise<void>;
  /**
   * Ends it at once (SIGKILL), for state about to be removed: a graceful stop
   * takes about a second. Its SQLite file would survive this too (WAL: what
   * was committed stays), as it does a killed command.
   */
  kill(): Promise<void>;
}

export interface DevServerOptions {
  readonly dbFile: string;
  /**
   * Given, the server listens there or the start is refused. Left out,
   * Temporal's default, or free ports when another process holds it or its
   * Web UI's (another Temporal server, another run's).
   */
  readonly port?: number;
  /** Defaults to port + 1000, as the Temporal CLI does. */
  readonly uiPort?: number;
  /** Server dynamic config, e.g. { 'limit.blobSize.error': 65536 } (tests). */
  readonly dynamicConfig?: Readonly<Record<string, string | number>>;
  /** The run's Temporal log (infra/temporal-log.ts), where the server's output goes. */
  readonly log?: string;
  /** Sessions the run has in flight at once (its window): sizes the server's memory limit (goMemoryLimitMiB). */
  readonly sessions?: number;
}

/**
 * A soft limit on the Go runtime's memory for a server of `sessions` in
 * flight (GOMEMLIMIT). Go lets its heap grow to twice what is live before it
 * collects: an idle server holds about 143 MiB (93 of them its executable's
 * pages, 36 MiB of live heap), and the 72-session panel at window 8 took it to
 * 185 unbounded. Held to 80 MiB, the panel's server peaks at 157 MiB for the
 * same CPU as at 88 (164 MiB); at 64 MiB it collected without pause (a third
 * more CPU). Per session the limit grows by more than a session's share of the
 * server's memory at window 512 (about 230 MiB of Go's in all, so 332 MiB
 * there), where it then never binds.
 */
const goMemoryLimitMiB = (sessions: number) => 80 + 0.5 * Math.max(0, sessions - 8);

const READY_TIMEOUT_MS = 60_000;

/** The embedded server's dynamic config: where its defaults cost a sweep time. */
const DEV_SERVER_TUNING: Readonly<Record<string, number | string>> = {
  /*
   * The dev server runs one history shard, and a shard reads its transfer
   * queue (the tasks that hand workflow and activity tasks to matching) at
   * most 20 times a second by default. A session past its first few dozen
   * calls drains the limiter's burst and then waits about 40 ms per activity
   * dispatch (bench/r3-long-bench.ts: 79 ms of orchestration per call instead
   * of 25 ms). Each read is one SQLite query and happens only when a task was written.
   */
  'history.transferProcessorMaxPollRPS': 1000,
  /*
   * A background task waits at most 500 ms for a workflow's lock by default
   * before it is put back with a growing delay, and the host (here its one
   * shard) runs 512 transfer tasks at once. Both were set for hundreds of
   * tasks waiting on one workflow's lock at once — the sweep's, when sessions
   * were its children (bench:bare: 512 children start over 3.3 s with these,
   * 7.8 s without). Sessions are top-level now and wait each on its own; the
   * one shard writes to SQLite one transaction at a time anyway, and no run
   * of bench:scale has yet told these from the defaults on the shared machine.
   */
  'history.cacheNonUserContextLockTimeout': '2s',
  'history.transferProcessorSchedulerWorkerCount': 16,
  /*
   * Every write of the one shard waits for one of this many places (1 by
   * default), held across its preparation as well as its SQLite call. When
   * hundreds of sessions' workflow tasks are completed at once, the last wait
   * seconds, and a task the server hands back with a completion (the SDK's
   * heartbeat of a task kept open by local activities) has its start stamped
   * before that wait: the worker's next heartbeat, 8 s after the task reached
   * it, then misses the 10 s timeout. bench:scale at window 512 (history
   * service's RespondWorkflowTaskCompleted): 25–70 of about 4,100 over 1 s with
   * one place, none with eight; 30 and 35 ms against 12 and 14 ms at the mean.
   */
  'history.shardIOConcurrency': 8,
  /*
   * One partition per task queue, not four: the one server process needs no
   * spreading, and each partition of the system's and the sweep's queues keeps
   * its own managers, buffers and goroutines (an idle server 7.5 MiB less;
   * bench:scale at 512 moves as many turns).
   */
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};
const SEARCH_ATTRIBUTE_TYPES = { KEYWORD: 'Keyword', INT: 'Int' } as const;

function pidFileFor(dbFile: string): string {
  return `${dbFile}.pid`;
}

/** Where a running server on this SQLite file answers, for another command on the same run (`allocbench cancel`). */
function addressFileFor(dbFile: string): string {
  return `${dbFile}.address`;
}

/** The process a pid file names, if it is a server on this SQLite file and still running. */
function serverProcess(dbFile: string): number | undefined {
  const pidFile = pidFileFor(dbFile);
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const cmdline = `/proc/${pid}/cmdline`;
  return Number.isInteger(pid) && existsSync(cmdline) && readFileSync(cmdline, 'utf8').includes(dbFile) ? pid : undefined;
}

/** The address of the dev server running on this SQLite file (another command's embedded server), if one is. */
export function runningDevServer(dbFile: string): string | undefined {
  if (serverProcess(dbFile) === undefined || !existsSync(addressFileFor(dbFile))) return undefined;
  return readFileSync(addressFileFor(dbFile), 'utf8').trim() || undefined;
}

/**
 * A dev server left running on this SQLite file by a run that was killed
 * outright holds the file and the port; stop it before starting anew.
 */
async function stopOrphan(dbFile: string): Promise<void> {
  const pid = serverProcess(dbFile);
  if (pid !== undefined) {
    const cmdline = `/proc/${pid}/cmdline`;
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && existsSync(cmdline); i++) await sleep(100);
    if (existsSync(cmdline)) process.kill(pid, 'SIGKILL');
  }
  rmSync(pidFileFor(dbFile), { force: true });
  rmSync(addressFileFor(dbFile), { force: true });
}

/** The server could not bind a port that was free when it was chosen: another process took it first. */
class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`the Temporal dev server could not bind port ${port}: another process took it first`);
  }
}

const portTaken = (port: number) =>
  new InputError(
    `port ${port} is already taken; pick another --temporal-port (or none, for free ports), or set TEMPORAL_ADDRESS to use a running server`,
  );

/** The port a server could not bind, from its line that says so ("listen tcp 127.0.0.1:7233: bind: address already in use"). */
function portInUse(line: string): number | undefined {
  const match = /:(\d+): bind: address already in use/.exec(line);
  return match ? Number(match[1]) : undefined;
}

/** What a starting server has told so far, as its output arrives. */
interface StartingServer {
  /** It wrote its banner to stdout, which it does once it listens (its log lines go to stderr). */
  started: boolean;
  /** Its process has ended and its output is all read. */
  closed: boolean;
  firstError: string;
  /** A port it could not bind. */
  portInUse?: number;
}

/** Until the server started: one that answers on the port before then is another process's, which bound the port first. */
async function waitUntilReady(address: string, child: ChildProcess, server: StartingServer): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.closed) {
      if (server.portInUse !== undefined) throw new PortInUseError(server.portInUse);
      throw new Error(`the Temporal dev server exited with code ${child.exitCode}: ${server.firstError}`);
    }
    if (server.started) {
      try {
        const connection = await Connection.connect({ address, connectTimeout: 1000 });
        await connection.workflowService.getSystemInfo({});
        await connection.close();
        return;
      } catch {
        // not answering yet
      }
    }
    await sleep(200);
  }
  throw new Error(`the Temporal dev server did not answer on ${address} within ${READY_TIMEOUT_MS / 1000} s`);
}

interface Ports {
  readonly port: number;
  readonly uiPort: number;
}

/** How many times the default start draws free ports again when another process binds one first. */
const PORT_DRAWS = 5;

const drawPorts = async (): Promise<Ports> => {
  const port = await freeServerPort();
  return { port, uiPort: port + UI_OFFSET };
};

/**
 * Starts the dev server on the ports asked for (refused if one is taken), or,
 * with none asked for, on Temporal's default ones if both are free, else on
 * free ones; a default start whose ports another process binds first (two
 * runs starting at once) draws free ones again.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = temporalCliPath();
  if (!existsSync(binary)) throw new InputError(`the Temporal CLI is not installed at ${binary}; run npm ci`);
  await stopOrphan(options.dbFile);
  mkdirSync(dirname(options.dbFile), { recursive: true });
  if (options.port !== undefined) {
    const ports = { port: options.port, uiPort: options.uiPort ?? options.port + UI_OFFSET };
    for (const port of [ports.port, ports.uiPort]) if (!(await portIsFree(port))) throw portTaken(port);
    return launch(binary, options, ports).catch((error: unknown) => {
      throw error instanceof PortInUseError ? portTaken(error.port) : error;
    });
  }
  const defaults = { port: DEFAULT_TEMPORAL_PORT, uiPort: DEFAULT_TEMPORAL_PORT + UI_OFFSET };
  let defaultPortTaken: number | undefined;
  for (const port of [defaults.port, defaults.uiPort])
    if (defaultPortTaken === undefined && !(await portIsFree(port))) defaultPortTaken = port;
  let ports = defaultPortTaken === undefined ? defaults : await drawPorts();
  for (let draw = 1; ; draw++) {
    try {
      return await launch(binary, options, ports, defaultPortTaken);
    } catch (error) {
      if (!(error instanceof PortInUseError) || draw === PORT_DRAWS) throw error;
      if (ports === defaults) defaultPortTaken = error.port;
      ports = await drawPorts();
    }
  }
}

async function launch(binary: string, options: DevServerOptions, ports: Ports, defaultPortTaken?: number): Promise<DevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(ports.port),
    '--ui-port',
    String(ports.uiPort),
    '--db-filename',
    options.dbFile,
    '--log-level',
    'error',
    // WAL with normal syncing: about 20% more turns per second; a crashed process loses no committed state.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    ...SEARCH_ATTRIBUTE_KEYS.flatMap((key) => [
      '--search-attribute',
      `${key.name}=${SEARCH_ATTRIBUTE_TYPES[key.type as keyof typeof SEARCH_ATTRIBUTE_TYPES]}`,
    ]),
    ...Object.entries({ ...DEV_SERVER_TUNING, ...options.dynamicConfig }).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
  const env = options.sessions === undefined ? process.env : { ...process.env, GOMEMLIMIT: `${goMemoryLimitMiB(options.sessions)}MiB` };
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  // A command that ends by process.exit (its reader closed the pipe) takes its server with it.
  const stopWithThisProcess = () => child.kill('SIGTERM');
  process.once('exit', stopWithThisProcess);
  const server: StartingServer = { started: false, closed: false, firstError: '' };
  const log = (line: string) => options.log && line.trim() && appendTemporalLog(options.log, 'server', line);
  createInterface({ input: child.stdout }).on('line', (line) => {
    server.started = true;
    log(line);
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    server.firstError ||= line.trim();
    server.portInUse ??= portInUse(line);
    log(line);
  });
  child.once('close', () => (server.closed = true));
  const pidFile = pidFileFor(options.dbFile);
  writeFileSync(pidFile, String(child.pid));
  const address = `127.0.0.1:${ports.port}`;
  try {
    await waitUntilReady(address, child, server);
  } catch (error) {
    child.kill('SIGKILL');
    process.removeListener('exit', stopWithThisProcess);
    rmSync(pidFile, { force: true });
    throw error;
  }
  writeFileSync(addressFileFor(options.dbFile), address);
  const end = async (signal: 'SIGTERM' | 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      const forceKill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(forceKill);
    }
    process.removeListener('exit', stopWithThisProcess);
    rmSync(pidFile, { force: true });
    rmSync(addressFileFor(options.dbFile), { force: true });
  };
  return {
    address,
    namespace: 'default',
    uiUrl: `http://127.0.0.1:${ports.uiPort}`,
    ...(defaultPortTaken !== undefined && { defaultPortTaken }),
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

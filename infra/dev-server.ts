import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { InputError } from '../core/errors.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../protocol/search-attributes.js';
import { portIsFree } from './ports.js';
import { temporalCliPath } from './temporal-cli.js';

/** The embedded default: the Temporal CLI's dev server, persisted to a SQLite file in the run directory. */
export interface DevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  readonly dbFile: string;
  readonly port: number;
  /** Defaults to port + 1000, as the Temporal CLI does. */
  readonly uiPort?: number;
  /** Server dynamic config, e.g. { 'limit.blobSize.error': 65536 } (tests). */
  readonly dynamicConfig?: Readonly<Record<string, string | number>>;
}

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

async function waitUntilReady(address: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the Temporal dev server exited with code ${child.exitCode}: ${stderr().trim().split('\n').at(-1) ?? ''}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error(`the Temporal dev server did not answer on ${address} within ${READY_TIMEOUT_MS / 1000} s`);
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const binary = temporalCliPath();
  if (!existsSync(binary)) throw new InputError(`the Temporal CLI is not installed at ${binary}; run npm ci`);
  const uiPort = options.uiPort ?? options.port + 1000;
  await stopOrphan(options.dbFile);
  for (const port of [options.port, uiPort]) {
    if (!(await portIsFree(port))) {
      throw new InputError(
        `port ${port} is already taken; pick other ports with --temporal-port, or set TEMPORAL_ADDRESS to use a running server`,
      );
    }
  }
  mkdirSync(dirname(options.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--ui-port',
    String(uiPort),
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
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const pidFile = pidFileFor(options.dbFile);
  writeFileSync(pidFile, String(child.pid));
  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilReady(address, child, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  writeFileSync(addressFileFor(options.dbFile), address);
  return {
    address,
    namespace: 'default',
    uiUrl: `http://127.0.0.1:${uiPort}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const forceKill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(forceKill);
      }
      rmSync(pidFile, { force: true });
      rmSync(addressFileFor(options.dbFile), { force: true });
    },
  };
}

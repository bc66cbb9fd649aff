import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import type { RunStore } from '../run-store/run-store.js';
import { InputError } from '../core/errors.js';
import { startDevServer, type DevServer } from '../infra/dev-server.js';
import { temporalLogLength, temporalLogSummary } from '../infra/temporal-log.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { connectClient, connectWorker, type TemporalTarget } from '../infra/temporal-target.js';
import { createWorkers, runWorkers } from '../workers/create-workers.js';
import { startSandboxProcess, type SandboxProcess } from '../workers/sandbox-launcher.js';
import { providerLimits } from './provider-limits.js';

/** A run's Temporal as a command uses it: a client, the connection under it, where it is, and the run's Temporal log. */
export interface RunTemporal {
  readonly client: Client;
  readonly connection: Connection;
  readonly target: TemporalTarget;
  readonly log: string;
}

/** The embedded dev server's SQLite file for a run: in its local state directory (temporal/). */
export const embeddedDatabase = (store: RunStore) => join(store.localStateDir, 'dev.sqlite');

/** The run's Temporal log (infra/temporal-log.ts): beside its local state directory, which a complete run removes. */
export const temporalLog = (store: RunStore) => `${store.localStateDir}.log`;

/**
 * Runs `use` with a client of the run's Temporal: the cluster `remote` names,
 * or else the embedded dev server, started on the run's SQLite file on
 * `port` (left out: Temporal's default, or free ports when it is taken), its
 * Web UI said. The SDK's and the server's lines go to the run's Temporal log,
 * and a line at the end counts its warnings and errors, if any. Everything is
 * closed and stopped however `use` ends; the server at once where its state
 * is about to be removed.
 */
export async function withRunTemporal<T>(
  store: RunStore,
  remote: TemporalTarget | null,
  options: {
    readonly port: number | undefined;
    readonly say: (line: string) => void;
    /** Whether the embedded server's state is removed after what `use` came to: its server is then killed, not stopped. */
    readonly discardsState?: (result: T) => boolean;
    /** Sessions the run has in flight at once (its window), for the embedded server's memory limit. */
    readonly sessions?: number;
  },
  use: (temporal: RunTemporal) => Promise<T>,
): Promise<T> {
  const log = temporalLog(store);
  let logStart = temporalLogLength(log);
  installQuietRuntime(log);
  let server: DevServer | undefined;
  let connection: Connection | undefined;
  let refused = false;
  let discarded = false;
  try {
    if (!remote) {
      server = await startDevServer({ dbFile: embeddedDatabase(store), port: options.port, log, sessions: options.sessions });
      const taken = server.defaultPortTaken;
      const where = taken === undefined ? ',' : ` on ${server.address}, as port ${taken} is taken;`;
      options.say(`Temporal Web UI: ${server.uiUrl} (embedded dev server${where} state in ${store.localStateDir})`);
      // A start that lost its ports to another process, and drew others, logged that error behind this point.
      logStart = temporalLogLength(log);
    }
    const target: TemporalTarget = remote ?? { address: server?.address as string, namespace: 'default' };
    connection = await connectClient(target);
    const result = await use({ client: new Client({ connection, namespace: target.namespace }), connection, target, log });
    discarded = options.discardsState?.(result) ?? false;
    return result;
  } catch (error) {
    refused = error instanceof InputError;
    throw error;
  } finally {
    await connection?.close();
    await shutdownRuntime();
    await (discarded ? server?.kill() : server?.stop());
    // A refusal is the one line of its error.
    const logged = refused ? undefined : temporalLogSummary(log, logStart);
    if (logged) options.say(logged);
  }
}

/** R3 scripts run at once in the sandbox worker process (`limits.sandbox` in a sweep). */
const DEFAULT_SANDBOX_CONCURRENCY = 2;

/**
 * Runs `work` while workers in this process serve the sweep's sessions, its
 * providers and, for R3, its sandbox (a process of its own); shuts them down
 * cleanly once `work` settles.
 */
export async function withSweepWorkers<T>(
  { target, log }: Pick<RunTemporal, 'target' | 'log'>,
  config: SweepConfig,
  say: (line: string) => void,
  work: () => Promise<T>,
): Promise<T> {
  const connection = await connectWorker(target);
  let sandbox: SandboxProcess | undefined;
  try {
    const workers = await createWorkers({
      connection,
      namespace: target.namespace,
      sessions: true,
      sessionSlots: config.window,
      providers: providerLimits(config),
    });
    if (config.rungs.includes('R3')) {
      sandbox = startSandboxProcess({
        env: { TEMPORAL_ADDRESS: target.address, TEMPORAL_NAMESPACE: target.namespace, ALLOCBENCH_TEMPORAL_LOG: log },
        concurrency: config.limits.sandbox?.concurrency ?? DEFAULT_SANDBOX_CONCURRENCY,
        say,
      });
    }
    const result = work();
    await runWorkers(workers, result);
    return await result;
  } finally {
    await sandbox?.stop();
    await connection.close();
  }
}

import { join } from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import type { RunStore } from '../run-store/run-store.js';
import { startDevServer, type DevServer } from '../infra/dev-server.js';
import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { connectClient, connectWorker, type TemporalTarget } from '../infra/temporal-target.js';
import { createWorkers, runWorkers } from '../workers/create-workers.js';
import { startSandboxProcess, type SandboxProcess } from '../workers/sandbox-launcher.js';
import { providerLimits } from './provider-limits.js';

/** A run's Temporal as a command uses it: a client, the connection under it, and where it is. */
export interface RunTemporal {
  readonly client: Client;
  readonly connection: Connection;
  readonly target: TemporalTarget;
}

/** The embedded dev server's SQLite file for a run: in its local state directory (temporal/). */
export const embeddedDatabase = (store: RunStore) => join(store.localStateDir, 'dev.sqlite');

/**
 * Runs `use` with a client of the run's Temporal: the cluster `remote` names,
 * or else the embedded dev server, started on the run's SQLite file (its Web
 * UI said). Everything is closed and stopped however `use` ends.
 */
export async function withRunTemporal<T>(
  store: RunStore,
  remote: TemporalTarget | null,
  embedded: { readonly port: number; readonly say: (line: string) => void },
  use: (temporal: RunTemporal) => Promise<T>,
): Promise<T> {
  installQuietRuntime();
  let server: DevServer | undefined;
  let connection: Connection | undefined;
  try {
    if (!remote) {
      server = await startDevServer({ dbFile: embeddedDatabase(store), port: embedded.port });
      embedded.say(`Temporal Web UI: ${server.uiUrl} (embedded dev server, state in ${store.localStateDir})`);
    }
    const target: TemporalTarget = remote ?? { address: server?.address as string, namespace: 'default' };
    connection = await connectClient(target);
    return await use({ client: new Client({ connection, namespace: target.namespace }), connection, target });
  } finally {
    await connection?.close();
    await shutdownRuntime();
    await server?.stop();
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
  target: TemporalTarget,
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
        env: { TEMPORAL_ADDRESS: target.address, TEMPORAL_NAMESPACE: target.namespace },
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

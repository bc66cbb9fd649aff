import { installQuietRuntime, shutdownRuntime } from '../infra/temporal-runtime.js';
import { connectWorker, type TemporalTarget } from '../infra/temporal-target.js';
import { createWorkers, runWorkers, type ProviderLimit } from './create-workers.js';
import { startSandboxProcess } from './sandbox-launcher.js';

/** What one machine serves for a cluster (`allocbench worker`). */
export interface ClusterService {
  readonly target: TemporalTarget;
  /** Providers whose calls this worker makes, in-session and from their queues, with their limits. */
  readonly providers: readonly ProviderLimit[];
  /** Serve the session workflows too (their workflow tasks and in-session calls). */
  readonly sessions: boolean;
  readonly sessionSlots: number;
  /** R3 scripts run at once by the sandbox worker process; 0: no sandbox worker here. */
  readonly sandboxConcurrency: number;
  readonly say: (line: string) => void;
}

/** Serves sessions, provider queues and the R3 sandbox for a cluster until `stop` settles, then shuts them down cleanly. */
export async function serveCluster(service: ClusterService, stop: Promise<unknown>): Promise<void> {
  const { target, say } = service;
  installQuietRuntime();
  const connection = await connectWorker(target);
  try {
    const workers = await createWorkers({
      connection,
      namespace: target.namespace,
      sessions: service.sessions,
      sessionSlots: service.sessionSlots,
      providers: service.providers,
    });
    const sandbox =
      service.sandboxConcurrency > 0 ? startSandboxProcess({ env: {}, concurrency: service.sandboxConcurrency, say }) : undefined;
    say(
      `allocbench worker on ${target.address} (${target.namespace}): ${service.sessions ? 'sessions, ' : ''}${sandbox ? 'R3 sandbox, ' : ''}providers ${service.providers.map((p) => p.provider).join(', ') || 'none'}`,
    );
    await runWorkers(workers, stop);
    await sandbox?.stop();
  } finally {
    await connection.close();
    await shutdownRuntime();
  }
}

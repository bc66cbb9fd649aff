import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { PROVIDER_NAMES } from '../../activities/providers/registry.js';
import { targetFromEnv } from '../../infra/temporal-target.js';
import { integerIn, numberIn } from '../options.js';

interface WorkerFlags {
  providers: string;
  sessions: boolean;
  sandbox: boolean;
  concurrency?: number;
  sessionSlots: number;
  sandboxConcurrency: number;
  perSecond?: number;
  adaptive: boolean;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('serve sessions and model calls for a Temporal cluster (TEMPORAL_ADDRESS) until interrupted')
    .option(
      '--providers <list>',
      `providers whose calls this worker makes, in-session and from their queues, comma-separated (${PROVIDER_NAMES.join(', ')})`,
      PROVIDER_NAMES.join(','),
    )
    .option('--no-sessions', 'serve only provider queues, not the session workflows')
    .option('--no-sandbox', 'do not run the R3 sandbox worker process')
    .option('--sandbox-concurrency <n>', 'R3 scripts run at once by the sandbox worker process', integerIn(1, 256), 2)
    .option('--concurrency <n>', 'model calls this worker makes at once per provider (default: --session-slots)', integerIn(1, 10_000))
    .option(
      '--session-slots <n>',
      'sessions this worker carries at once (its workflow-task and local-activity slots)',
      integerIn(1, 10_000),
      200,
    )
    .option(
      '--per-second <r>',
      "calls this worker starts per second per provider (its own; a sweep's limits.<provider>.perSecond holds across the cluster)",
      numberIn(0, 1e6, { exclusiveMin: true }),
    )
    .option('--no-adaptive', 'keep --concurrency fixed instead of adapting it to throttled replies (429, 529, overloaded 503)')
    .action(async (flags: WorkerFlags) => {
      const target = targetFromEnv();
      if (!target)
        throw new InputError('allocbench worker joins a cluster: set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TLS settings as needed)');
      const providers = flags.providers
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const unknown = providers.find((p) => !PROVIDER_NAMES.includes(p));
      if (unknown) throw new InputError(`--providers: unknown provider '${unknown}' (known: ${PROVIDER_NAMES.join(', ')})`);
      // The reference agents have no queue and no limit: their calls run with the sessions.
      const limits = providers
        .filter((provider) => provider !== 'policy')
        .map((provider) => ({
          provider,
          concurrency: flags.concurrency ?? flags.sessionSlots,
          adaptive: flags.adaptive,
          ...(flags.perSecond && { perSecond: flags.perSecond }),
        }));
      // Loaded once the flags are known good: a refused command line never loads Temporal.
      const { serveCluster } = await import('../../workers/serve-cluster.js');
      const stop = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await serveCluster(
        {
          target,
          providers: limits,
          sessions: flags.sessions,
          sessionSlots: flags.sessionSlots,
          sandboxConcurrency: flags.sandbox ? flags.sandboxConcurrency : 0,
          say: (line) => process.stderr.write(`${line}\n`),
        },
        stop,
      );
    });
}

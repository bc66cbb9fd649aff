import type { Connection } from '@temporalio/client';
import { InputError } from '../core/errors.js';
import { calledModels } from '../core/sweep/expand-sweep.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { providerRate, setProviderRate } from '../infra/queue-rate.js';
import type { TemporalTarget } from '../infra/temporal-target.js';
import { providerOf, providerTaskQueue } from '../protocol/task-queues.js';
import type { ProviderLimit } from '../workers/create-workers.js';

/** A local GGUF model runs on this machine's cores; every other provider takes as many calls as sessions are in flight. */
const DEFAULT_CONCURRENCY: Readonly<Record<string, number>> = { gguf: 2 };

/** The providers a sweep calls (a split agent's planner and builder too), the reference agents aside (they answer in-session, unlimited). */
const calledProviders = (config: SweepConfig) =>
  [...new Set(calledModels(config).map(providerOf))].filter((provider) => provider !== 'policy');

/**
 * This process's limits from the sweep config for every provider it calls:
 * the window's calls unless limited, adapting to the provider unless
 * `adaptive: false`. They bound the calls the sessions make in-session and,
 * on a provider queue, the queue's worker — which runs either way, for a
 * resumed sweep begun with its calls on provider queues. `perSecond` is this
 * worker's only where the calls run in-session (the embedded server's one
 * worker); on provider queues the server holds every worker to it.
 */
export function providerLimits(config: SweepConfig): ProviderLimit[] {
  return calledProviders(config).map((provider) => {
    const limit = config.limits[provider];
    return {
      provider,
      concurrency: limit?.concurrency ?? DEFAULT_CONCURRENCY[provider] ?? config.window,
      adaptive: limit?.adaptive ?? true,
      ...(limit?.perSecond !== undefined && config.modelCalls === 'in-session' && { perSecond: limit.perSecond }),
    };
  });
}

/**
 * A rate for the whole run holds on a cluster only where the server keeps it:
 * in-session calls run on whichever workers run the sessions, each with its own
 * limits, so no worker's rate is the run's.
 */
export function checkClusterRate(config: SweepConfig, remote: TemporalTarget | null): void {
  if (!remote || config.modelCalls !== 'in-session') return;
  const rated = calledProviders(config).find((provider) => config.limits[provider]?.perSecond !== undefined);
  if (rated) {
    throw new InputError(
      `limits.${rated}.perSecond: a rate across a cluster needs modelCalls: provider-queue (in-session calls are limited by each worker on its own)`,
    );
  }
}

/**
 * Sets each provider queue's rate on the server from the sweep's `perSecond`;
 * a rate already there that the sweep does not set (an earlier run's, an
 * operator's) is left as it is, and said.
 */
export async function setProviderRates(connection: Connection, config: SweepConfig, namespace: string, say: (line: string) => void) {
  if (config.modelCalls !== 'provider-queue') return;
  for (const provider of calledProviders(config)) {
    const perSecond = config.limits[provider]?.perSecond;
    if (perSecond !== undefined) {
      await setProviderRate(connection, namespace, provider, perSecond, `sweep ${config.name}: limits.${provider}.perSecond`).catch(
        (error: unknown) => {
          const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
          throw new InputError(
            `limits.${provider}.perSecond: the server did not take the rate for ${providerTaskQueue(provider)}: ${reason}`,
          );
        },
      );
      continue;
    }
    // Only said: a server too old to report its task-queue config runs the sweep all the same.
    const standing = await providerRate(connection, namespace, provider).catch(() => undefined);
    if (standing !== undefined) {
      say(
        `${providerTaskQueue(provider)} is held to ${standing} calls per second by the server (set before this sweep; temporal task-queue config set changes it)`,
      );
    }
  }
}

import { hostname } from 'node:os';
import type { ConcurrencyRecord, RunStore } from '../../run-store/run-store.js';
import { KeyedQueue } from '../keyed-queue.js';
import type { AdaptiveState } from './adaptive-concurrency.js';

/** This worker process, as its concurrency records name it. */
const WORKER = `${hostname()}:${process.pid}`;

/** One write at a time per run and provider, in order, so the last change is the one that stays. */
const writes = new KeyedQueue();

function concurrencyRecord(provider: string, state: AdaptiveState): ConcurrencyRecord {
  const at = (ms: number) => new Date(ms).toISOString();
  const last = state.recent.at(-1);
  return {
    provider,
    worker: WORKER,
    at: at(last?.atMs ?? Date.now()),
    limit: state.limit,
    floor: state.floor,
    ceiling: state.ceiling,
    cuts: state.cuts,
    throttled: state.throttled,
    changes: state.recent.map(({ atMs, from, to, cause }) => ({ at: at(atMs), from, to, cause })),
  };
}

/**
 * Says a change of a provider's adaptive limit on stderr and records this
 * worker's limit in the run, where `allocbench status` reads it. A record
 * that cannot be written is said and the call goes on: the limit is advice
 * about the run, not part of its results.
 */
export async function recordConcurrencyChange(store: RunStore, provider: string, state: AdaptiveState): Promise<void> {
  const change = state.recent.at(-1);
  if (!change) return;
  const why = change.cause === 'recovered' ? 'calls answered' : `${change.cause} from the provider; ${state.throttled} throttled so far`;
  process.stderr.write(`allocbench: ${provider} calls at once ${change.from} -> ${change.to} (${why})\n`);
  try {
    await writes.run(`${store.location}\0${provider}`, () => store.writeConcurrency(concurrencyRecord(provider, state)));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`allocbench: ${provider}'s concurrency limit not recorded in ${store.location}: ${reason}\n`);
  }
}

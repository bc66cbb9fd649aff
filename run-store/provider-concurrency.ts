import type { ConcurrencyRecord, RunStore } from './run-store.js';

/** A provider's adaptive limit in a run: the limit its workers last recorded, with what brought it there. */
export interface ProviderConcurrency {
  readonly provider: string;
  /** The most recently changed worker's limit, and its ceiling. */
  readonly limit: number;
  readonly ceiling: number;
  readonly at: string;
  /** Summed over the workers that recorded one. */
  readonly cuts: number;
  readonly throttled: number;
  readonly workers: number;
}

/** Each provider's adaptive limit on calls at once, from its workers' records (what `status` and the viewer show). */
export async function providerConcurrency(store: RunStore): Promise<ProviderConcurrency[]> {
  const byProvider = new Map<string, ConcurrencyRecord[]>();
  for (const record of await store.readConcurrency()) {
    byProvider.set(record.provider, [...(byProvider.get(record.provider) ?? []), record]);
  }
  return [...byProvider].map(([provider, records]) => {
    const latest = records.reduce((a, b) => (b.at > a.at ? b : a));
    const sum = (field: 'cuts' | 'throttled') => records.reduce((total, record) => total + record[field], 0);
    return {
      provider,
      limit: latest.limit,
      ceiling: latest.ceiling,
      at: latest.at,
      cuts: sum('cuts'),
      throttled: sum('throttled'),
      workers: records.length,
    };
  });
}

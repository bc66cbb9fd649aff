import type { SessionSpec } from '../core/sweep/session-spec.js';
import { CorruptRunDataError } from './corrupt-data.js';
import { inBatches } from './in-batches.js';
import type { RunStore } from './run-store.js';
import type { SessionSummary } from './session-summary.js';

/** One session's summary as a reader finds it: there, not there (not finished), or there and unreadable (one line naming it). */
export interface SummaryReading {
  readonly spec: SessionSpec;
  readonly summary?: SessionSummary;
  readonly corrupt?: string;
}

/** Summaries read at once. */
const PARALLEL_READS = 32;

/** Every summary of a sweep, in the order of `specs` (expandSweep's): the one way every command reads them. */
export function readSweepSummaries(store: RunStore, specs: readonly SessionSpec[]): Promise<SummaryReading[]> {
  return inBatches(specs, PARALLEL_READS, async (spec): Promise<SummaryReading> => {
    try {
      const summary = await store.readSummary(spec);
      return summary ? { spec, summary } : { spec };
    } catch (error) {
      if (error instanceof CorruptRunDataError) return { spec, corrupt: error.message };
      throw error;
    }
  });
}

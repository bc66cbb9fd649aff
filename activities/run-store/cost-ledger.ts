import { join } from 'node:path';
import { appendJsonLine, readJsonLinesAfter, START_OF_FILE, type LinePosition } from './json-files.js';
import { withFile } from './store-errors.js';

/**
 * costs.jsonl: one line per paid attempt across the whole run, so the run
 * cost cap can be checked before each call without reading every transcript.
 * Each process keeps a running total and reads only what was appended since.
 */
export interface CostEntry {
  readonly at: string;
  readonly session: string;
  readonly t: number;
  readonly costUsd: number;
}

const ledgerPath = (runDir: string) => join(runDir, 'costs.jsonl');
const totals = new Map<string, { next: LinePosition; total: number }>();

export async function recordCost(runDir: string, entry: CostEntry): Promise<void> {
  const path = ledgerPath(runDir);
  await withFile(path, () => appendJsonLine(path, entry));
}

/** USD spent so far by every worker of the run. A line another worker is still writing waits for the next read. */
export async function runCostUsd(runDir: string): Promise<number> {
  const path = ledgerPath(runDir);
  const known = totals.get(path) ?? { next: START_OF_FILE, total: 0 };
  const read = await readJsonLinesAfter<CostEntry>(path, known.next);
  const total = read.records.reduce((sum, entry) => sum + entry.costUsd, known.total);
  totals.set(path, { next: read.next, total });
  return total;
}

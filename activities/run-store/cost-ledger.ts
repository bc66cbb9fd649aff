import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { appendJsonLine } from './json-files.js';
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
const totals = new Map<string, { offset: number; total: number }>();

export async function recordCost(runDir: string, entry: CostEntry): Promise<void> {
  const path = ledgerPath(runDir);
  await withFile(path, () => appendJsonLine(path, entry));
}

/** USD spent so far by every worker of the run. */
export async function runCostUsd(runDir: string): Promise<number> {
  const path = ledgerPath(runDir);
  const known = totals.get(path) ?? { offset: 0, total: 0 };
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return known.total;
  }
  try {
    const { size } = await file.stat();
    if (size > known.offset) {
      const buffer = Buffer.alloc(size - known.offset);
      await file.read(buffer, 0, buffer.length, known.offset);
      const text = buffer.toString('utf8');
      const complete = text.slice(0, text.lastIndexOf('\n') + 1); // a line still being written waits for the next read
      for (const line of complete.split('\n')) if (line.trim()) known.total += (JSON.parse(line) as CostEntry).costUsd;
      known.offset += Buffer.byteLength(complete);
    }
  } finally {
    await file.close();
  }
  totals.set(path, known);
  return known.total;
}

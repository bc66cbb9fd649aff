import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { parseJsonExact } from '../../run-store/json-files.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';

/** The paper's stored streams (`stream.json` under PAPER_RUNS), read losslessly: golds beyond 2^53 arrive as BigInt. Identical files are read once. */
export { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS };

export interface PaperItem {
  readonly family: string;
  readonly keys: readonly string[];
  readonly inputs: Record<string, unknown>;
  readonly gold: number | bigint;
  readonly question: string;
}

export interface PaperStreamFile {
  /** Relative to PAPER_RUNS; the first of the identical files. */
  readonly path: string;
  readonly seed: number;
  readonly raw: unknown;
  readonly items: readonly PaperItem[];
}

function streamFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return streamFiles(path);
    return entry.name === 'stream.json' ? [path] : [];
  });
}

let cached: PaperStreamFile[] | undefined;

/** Every distinct stored stream, in path order (empty when the artifacts are absent). */
export function paperStreams(): PaperStreamFile[] {
  if (cached) return cached;
  const byContent = new Map<string, PaperStreamFile>();
  if (HAVE_PAPER_RUNS) {
    for (const path of streamFiles(PAPER_RUNS).sort()) {
      const text = readFileSync(path, 'utf8');
      if (byContent.has(text)) continue;
      const seed = Number(/^seed_(\d+)$/.exec(basename(dirname(path)))?.[1] ?? NaN);
      const raw = parseJsonExact(text);
      byContent.set(text, { path: relative(PAPER_RUNS, path), seed, raw, items: raw as PaperItem[] });
    }
  }
  cached = [...byContent.values()];
  return cached;
}

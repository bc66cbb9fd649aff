import { join } from 'node:path';
import { onlineOptima } from '../analysis/online-optimum.js';
import { encodeClasses } from '../core/session/compact-codes.js';
import { drawClassSequence } from '../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG, panelSeeds } from '../core/stream/stream-config.js';
import { classSequence } from '../core/stream/stream.js';
import { readSourceStream } from '../run-store/stream-source.js';
import { PAPER_RUNS, TEST_GROUPS } from '../infra/test-groups.js';

/**
 * Puts policy/optimal's nets on the panel's streams at the paper's setting
 * (T = 60, B = 3, K = 0) — the generator's, and the authors' where
 * shared/paper-artifacts is — into `cacheDir`: most tests' runs and imports
 * play them, so the run tables and reports they print read them there instead
 * of each solving the table (about 30 CPU-s). One solve, none once they are
 * there. The suite's set-up runs it as its own process beside the first test
 * files; a test that needs the table meanwhile waits for this solve
 * (analysis/stream-values-cache.ts).
 *
 *     node dist/bench/warm-online-cache.js <cacheDir>
 */
const cacheDir = process.argv[2];
if (!cacheDir) {
  console.error('usage: node dist/bench/warm-online-cache.js <cacheDir>');
  process.exit(2);
}
const seeds = panelSeeds();
const streams = seeds.map((seed) => Array.from(drawClassSequence(seed, DEFAULT_STREAM_CONFIG).classes));
if (TEST_GROUPS.paperRuns.present) {
  for (const seed of seeds) streams.push(classSequence(await readSourceStream(join(PAPER_RUNS, 'urn_haiku_n-announced'), seed)));
}
const spec = { budget: 3, charge: 0, stream: DEFAULT_STREAM_CONFIG };
await onlineOptima(
  streams.map((classes) => ({ spec, classes: encodeClasses(classes) })),
  { cacheDir },
);

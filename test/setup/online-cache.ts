import { join } from 'node:path';
import { readSourceStream } from '../../run-store/stream-source.js';
import { onlineOptima } from '../../analysis/online-optimum.js';
import { encodeClasses } from '../../core/session/compact-codes.js';
import { drawClassSequence } from '../../core/stream/class-sequence.js';
import { DEFAULT_STREAM_CONFIG, panelSeeds } from '../../core/stream/stream-config.js';
import { classSequence } from '../../core/stream/stream.js';
import { ONLINE_TEST_CACHE } from '../online-test-cache.js';
import { HAVE_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';

/**
 * Puts policy/optimal's nets on the panel's streams at the paper's setting
 * (T = 60, B = 3, K = 0) — the generator's, and the authors' where
 * shared/paper-artifacts is — into the test cache: most tests' runs and
 * imports play them, so the run tables and reports they print read them there
 * instead of each solving the table (about 30 CPU-s) at once. One solve, and
 * none once they are there.
 */
export async function warmOnlineCache(): Promise<void> {
  const seeds = panelSeeds();
  const streams = seeds.map((seed) => Array.from(drawClassSequence(seed, DEFAULT_STREAM_CONFIG).classes));
  if (HAVE_PAPER_RUNS) {
    for (const seed of seeds) streams.push(classSequence(await readSourceStream(join(PAPER_RUNS, 'urn_haiku_n-announced'), seed)));
  }
  const spec = { budget: 3, charge: 0, stream: DEFAULT_STREAM_CONFIG };
  await onlineOptima(
    streams.map((classes) => ({ spec, classes: encodeClasses(classes) })),
    { cacheDir: ONLINE_TEST_CACHE },
  );
}

import { generateStream } from '../../core/stream/generate-stream.js';
import type { StreamConfig } from '../../core/stream/stream-config.js';
import type { Stream } from '../../core/stream/stream.js';
import { streamHash } from '../../core/stream/stream-hash.js';
import { readJsonIfExists, writeJsonAtomic } from './json-files.js';
import { runLayout } from './run-layout.js';

const cache = new Map<string, Stream>();

/**
 * The stream for a seed, written to the run directory the first time and read
 * back afterwards. A stored stream that does not match its hash, or that a
 * different generator setting would produce, is refused rather than mixed.
 */
export async function ensureStream(runDir: string, seed: number, config: StreamConfig): Promise<Stream> {
  const path = runLayout.stream(runDir, seed);
  const cached = cache.get(path);
  if (cached && JSON.stringify(cached.config) === JSON.stringify(config)) return cached;
  const expected = generateStream(seed, config);
  const stored = await readJsonIfExists<Stream>(path);
  if (stored) {
    const { hash, ...body } = stored;
    if (streamHash(body) !== hash) throw new Error(`${path}: content does not match its hash`);
    if (hash !== expected.hash)
      throw new Error(`${path}: stream hash ${hash.slice(0, 12)} differs from the generator's ${expected.hash.slice(0, 12)}`);
  } else {
    await writeJsonAtomic(path, expected);
  }
  cache.set(path, expected);
  return expected;
}

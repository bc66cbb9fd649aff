import { existsSync } from 'node:fs';
import { generateStream } from '../core/stream/generate-stream.js';
import type { Stream } from '../core/stream/stream.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { runParts } from './run-layout.js';
import type { RunStore } from './run-store.js';
import { readSourceStream } from './stream-source.js';

const cache = new Map<string, Stream>();

/** Where a session's stream comes from besides its seed: its streams directory, else the generator's settings. */
export const streamSource = (spec: Pick<SessionSpec, 'stream' | 'streams'>): string => spec.streams ?? JSON.stringify(spec.stream);

/** The stream a session is meant to play: the generator's, or the one its `streams` directory holds. */
export function streamForSpec(spec: Pick<SessionSpec, 'seed' | 'stream' | 'streams'>): Promise<Stream> {
  return spec.streams === null ? Promise.resolve(generateStream(spec.seed, spec.stream)) : readSourceStream(spec.streams, spec.seed);
}

/**
 * The stream for a session's seed, written to the run the first time and read
 * back afterwards. A stored stream that does not match its hash, or that
 * differs from what the generator or the source directory now gives, is
 * refused rather than mixed.
 */
export async function ensureStream(store: RunStore, spec: Pick<SessionSpec, 'seed' | 'stream' | 'streams'>): Promise<Stream> {
  const where = store.where(runParts.stream(spec.seed));
  const key = `${where}\n${streamSource(spec)}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const stored = await store.readStream(spec.seed);
  // The run keeps its own copy: a source directory that has moved since is not needed to resume.
  if (stored && spec.streams !== null && !existsSync(spec.streams)) {
    cache.set(key, stored);
    return stored;
  }
  const expected = await streamForSpec(spec);
  if (!stored) await store.writeStream(expected);
  else if (stored.hash !== expected.hash) {
    const origin = spec.streams === null ? "the generator's" : `${spec.streams}'s`;
    throw new Error(`${where}: stream hash ${stored.hash.slice(0, 12)} differs from ${origin} ${expected.hash.slice(0, 12)}`);
  }
  cache.set(key, expected);
  return expected;
}

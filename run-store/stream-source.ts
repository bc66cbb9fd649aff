import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { fromPaperStream } from '../core/stream/paper-stream.js';
import type { StreamConfig } from '../core/stream/stream-config.js';
import type { Stream } from '../core/stream/stream.js';
import { streamHash } from '../core/stream/stream-hash.js';
import { CorruptRunDataError, parseStored } from './corrupt-data.js';
import { parseJsonExact } from './json-files.js';
import { runLayout } from './run-layout.js';

/** The paper's layout: one folder per seed holding its stream.json. */
export const paperStreamPath = (armDir: string, seed: number) => join(armDir, `seed_${seed}`, 'stream.json');

/** A stream of ours (a run's streams/seed-<S>.json), checked against its hash; `where` names it in errors. */
export function parseStoredStream(text: string, where: string): Stream {
  const stream = parseStored<Stream>(text, where, parseJsonExact);
  const { hash, ...body } = stream;
  if (streamHash(body) !== hash) throw new CorruptRunDataError(where, 'content does not match its hash');
  return stream;
}

/** Reads a stream file of ours and checks it against its hash. */
export async function readStoredStream(path: string): Promise<Stream> {
  return parseStoredStream(await readFile(path, 'utf8'), path);
}

/** Reads the paper's stream.json for a seed into a Stream; errors name the file. */
async function readPaperStream(path: string, seed: number): Promise<Stream> {
  let raw: unknown;
  try {
    raw = parseJsonExact(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InputError(`${path}: ${(error as Error).message.split('\n')[0]} (expected JSON)`);
  }
  try {
    return fromPaperStream(seed, raw);
  } catch (error) {
    throw new InputError(`${path}: ${(error as Error).message}`);
  }
}

/**
 * The stream of `seed` from a directory other than the generator: an authors'
 * arm (seed_<S>/stream.json) or an AllocBench run directory, such as an import
 * (streams/seed-<S>.json). A seed the directory lacks is a one-line error.
 */
export async function readSourceStream(dir: string, seed: number): Promise<Stream> {
  const paper = paperStreamPath(dir, seed);
  if (existsSync(paper)) return readPaperStream(paper, seed);
  const ours = runLayout.stream(dir, seed);
  if (existsSync(ours)) return readStoredStream(ours);
  if (!existsSync(dir)) throw new InputError(`streams: no such directory ${dir}`);
  throw new InputError(`streams: ${dir} has no stream for seed ${seed} (looked for ${paper} and ${ours})`);
}

/**
 * Checks that a streams directory holds a readable stream for every seed and
 * returns their generator settings (length, trap window, roles, magnitude),
 * which a run on them takes as its own; seeds that disagree are refused.
 */
export async function sourceStreamConfig(dir: string, seeds: readonly number[]): Promise<StreamConfig> {
  let first: Stream | undefined;
  for (const seed of seeds) {
    const stream = await readSourceStream(dir, seed);
    first ??= stream;
    if (JSON.stringify(stream.config) !== JSON.stringify(first.config)) {
      throw new InputError(`streams: seed ${seed} in ${dir} has other settings than seed ${first.seed} (${JSON.stringify(stream.config)})`);
    }
  }
  if (!first) throw new InputError('streams: no seeds');
  return first.config;
}

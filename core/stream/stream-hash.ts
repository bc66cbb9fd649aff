import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Stream } from './stream.js';

/**
 * SHA-256 (hex) of the stream's content: seed, settings, roles and every item
 * (family, role, inputs, answer and rendered text). Key order is fixed by the
 * generator, so the JSON of a stream read back from disk hashes the same.
 */
export function streamHash(stream: Omit<Stream, 'hash'>): string {
  const { seed, config, hot, trap, items } = stream;
  return bytesToHex(sha256(utf8ToBytes(JSON.stringify({ seed, config, hot, trap, items }))));
}

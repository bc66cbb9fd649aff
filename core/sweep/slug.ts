import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * A file-name-safe form of an identifier. When characters had to be replaced,
 * a short hash of the original keeps distinct identifiers distinct.
 */
export function slug(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return safe === text ? text : `${safe}-${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 8)}`;
}

import { FAMILIES } from '../families/registry.js';
import type { FamilyName } from '../families/family.js';
import { randomInt } from '../random/rng.js';
import { drawClassSequence } from './class-sequence.js';
import type { StreamConfig } from './stream-config.js';
import type { Stream, StreamItem } from './stream.js';
import { streamHash } from './stream-hash.js';

function familyAt(index: number) {
  const family = FAMILIES[index];
  if (!family) throw new RangeError(`no family at index ${index}`);
  return family;
}

/** The stream for one seed: latent classes, then fresh parameters and a random cover per item. */
export function generateStream(seed: number, config: StreamConfig): Stream {
  const sequence = drawClassSequence(seed, config);
  const rng = sequence.instanceRng;
  const hotSet = new Set(sequence.hot);
  const items: StreamItem[] = Array.from(sequence.classes, (classId, index) => {
    const family = familyAt(classId);
    const inputs = family.sample(rng, config.magnitude);
    const cover = randomInt(rng, 0, family.coverCount - 1);
    return {
      t: index + 1,
      family: family.name,
      role: hotSet.has(classId) ? 'hot' : 'trap',
      cover,
      text: family.render(inputs, cover),
      inputs,
      answer: family.solve(inputs).toString(),
    };
  });
  const names = (indices: readonly number[]): FamilyName[] => indices.map((i) => familyAt(i).name);
  const body = { seed, config, hot: names(sequence.hot), trap: names(sequence.trap), items };
  return { ...body, hash: streamHash(body) };
}

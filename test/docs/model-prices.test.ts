import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parseDocument } from 'yaml';
import { withoutOptions } from '../../activities/providers/model-options.js';
import { readPriceTable } from '../../activities/providers/prices.js';
import { projectRoot } from '../../infra/project-root.js';
import { docFiles } from './doc-examples.js';

const PRICES = join(projectRoot(), 'config', 'prices.yaml');

/**
 * Hosted model ids as the pages write them (`provider/model`, options and
 * placeholders aside; not npm packages such as `@google/genai`, nor the
 * model-name prefixes `compare` takes), with where each first appears.
 */
function hostedModelIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const file of docFiles()) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (line.includes('allocbench compare ')) return;
        for (const match of line.matchAll(/(?<![@\w/-])(?:anthropic|openai|openai-responses|google)\/[A-Za-z0-9][A-Za-z0-9._-]*/g)) {
          const id = withoutOptions(match[0].replace(/[.-]+$/, ''));
          if (!ids.has(id)) ids.set(id, `${file.slice(projectRoot().length + 1)}:${index + 1}`);
        }
      });
  }
  return ids;
}

describe('config/prices.yaml', () => {
  it('prices every hosted model id the README and docs name', () => {
    const table = readPriceTable(PRICES);
    const ids = hostedModelIds();
    expect(ids.size).toBeGreaterThan(3);
    const unpriced = [...ids].filter(([id]) => !table[id]).map(([id, where]) => `${id} (${where})`);
    expect(unpriced).toEqual([]);
  });

  it('says, for every entry, where its price came from and when', () => {
    const document = parseDocument(readFileSync(PRICES, 'utf8'));
    if (!isMap(document.contents)) throw new Error('the price table is not a mapping');
    const undated = document.contents.items.flatMap((pair) => {
      const key = isScalar(pair.key) ? pair.key : null;
      const comment = key?.commentBefore ?? '';
      return /Source: [\s\S]*\b20\d\d-\d\d\b/.test(comment) ? [] : [String(key?.value)];
    });
    expect(undated).toEqual([]);
  });
});

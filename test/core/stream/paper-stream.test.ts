import { describe, expect, it } from 'vitest';
import { getFamily } from '../../../core/families/registry.js';
import { fromPaperStream } from '../../../core/stream/paper-stream.js';
import { streamHash } from '../../../core/stream/stream-hash.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, paperStreams } from '../paper-streams.js';

describe.skipIf(!HAVE_PAPER_RUNS)(HAVE_PAPER_RUNS ? "fromPaperStream on the paper's stored streams" : `skipped: ${NO_PAPER_RUNS}`, () => {
  it('reads every distinct stream, its answers exactly the stored golds', () => {
    const files = paperStreams();
    expect(files.length).toBeGreaterThan(0);
    let beyondDoubles = 0;
    for (const file of files) {
      expect(Number.isInteger(file.seed), file.path).toBe(true);
      const stream = fromPaperStream(file.seed, file.raw);
      expect(stream.seed).toBe(file.seed);
      expect(stream.items).toHaveLength(file.items.length);
      expect(stream.hash).toBe(streamHash(stream));
      stream.items.forEach((item, index) => {
        const stored = file.items[index];
        const where = `${file.path} item ${index + 1}`;
        expect(item.family, where).toBe(stored?.family);
        expect(item.answer, where).toBe(String(stored?.gold));
        expect(item.answer, where).toBe(getFamily(item.family).solve(item.inputs).toString());
        expect(item.text, where).toBe(stored?.question);
        expect(item.cover, where).toBeNull();
        if (BigInt(item.answer) > BigInt(Number.MAX_SAFE_INTEGER)) beyondDoubles++;
      });
    }
    expect(beyondDoubles).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { PartitionRank } from '../../../core/policies/partition-rank.js';

/** Every partition of n into at most k parts, each at most m, parts descending. */
function partitions(n: number, k: number, m: number): number[][] {
  if (n === 0) return [[]];
  if (k === 0) return [];
  const out: number[][] = [];
  for (let first = Math.min(n, m); first >= 1; first--) {
    for (const rest of partitions(n - first, k - 1, first)) out.push([first, ...rest]);
  }
  return out;
}

describe('PartitionRank', () => {
  const ranks = new PartitionRank(12, 5);

  it('counts partitions by sum, parts and largest part', () => {
    for (let n = 0; n <= 12; n++) {
      for (let k = 0; k <= 5; k++) {
        for (let m = 0; m <= 12; m++) expect(ranks.count(n, k, m), `${n} ${k} ${m}`).toBe(partitions(n, k, m).length);
      }
    }
  });

  it('ranks the partitions of n onto 0..count-1, those within a cap first', () => {
    for (let n = 0; n <= 12; n++) {
      for (let k = 1; k <= 5; k++) {
        const all = partitions(n, k, n).map((p) => ranks.rank(p, p.length, n, k));
        expect([...all].sort((a, b) => a - b)).toEqual(all.map((_, i) => i));
        for (let cap = 1; cap <= n; cap++) {
          const capped = partitions(n, k, cap).map((p) => ranks.rank(p, p.length, n, k));
          expect(capped.every((rank) => rank < capped.length)).toBe(true);
        }
      }
    }
  });
});

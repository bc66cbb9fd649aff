/**
 * Dense indexing of integer partitions, so a table over multisets of counts
 * can live in flat arrays instead of a Map of keys.
 *
 * A partition of n into at most k parts is stored as its parts in descending
 * order. Partitions are ranked lexicographically with the largest part first,
 * smallest first, so the partitions whose parts are all <= m form a prefix:
 * those of n come first in the order and there are exactly count(n, k, m) of them.
 */
export class PartitionRank {
  private readonly table: Float64Array;
  private readonly kSize: number;
  private readonly mSize: number;

  /** Indexes partitions of every n <= maxSum into at most maxParts parts. */
  constructor(
    readonly maxSum: number,
    readonly maxParts: number,
  ) {
    this.kSize = maxParts + 1;
    this.mSize = maxSum + 1;
    this.table = new Float64Array((maxSum + 1) * this.kSize * this.mSize);
    // count(n, k, m) = count(n, k, m - 1) + count(n - m, k - 1, m): largest part below m, or exactly m.
    for (let n = 0; n <= maxSum; n++) {
      for (let k = 0; k <= maxParts; k++) {
        for (let m = 0; m <= maxSum; m++) {
          let c: number;
          if (n === 0) c = 1;
          else if (k === 0 || m === 0) c = 0;
          else c = this.count(n, k, m - 1) + (m <= n ? this.count(n - m, k - 1, m) : 0);
          this.table[(n * this.kSize + k) * this.mSize + m] = c;
        }
      }
    }
  }

  /** Partitions of n into at most k parts, each at most m. */
  count(n: number, k: number, m: number): number {
    return this.table[(n * this.kSize + Math.min(k, this.maxParts)) * this.mSize + Math.min(m, this.maxSum)] as number;
  }

  /** Rank of parts[0..length) (descending, summing to n) among the partitions of n into at most k parts. */
  rank(parts: ArrayLike<number>, length: number, n: number, k: number): number {
    // count(n, k - i, part - 1) inlined: this is the table's hot path.
    const { table, kSize, mSize } = this;
    let rank = 0;
    let partsLeft = Math.min(k, this.maxParts);
    for (let i = 0; i < length; i++, partsLeft--) {
      const part = parts[i] as number;
      rank += table[(n * kSize + partsLeft) * mSize + part - 1] as number;
      n -= part;
    }
    return rank;
  }
}

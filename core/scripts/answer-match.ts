/**
 * Whether a script's output or a raw answer is the gold answer, an integer
 * below 2^53. Accepted: an equal number, or a string holding that integer in
 * decimal (a BigInt comes out of the sandbox as one); "123.0" and "1.23e2"
 * are accepted as the number they denote, since R2's prompt speaks of floats.
 */
export function matchesGold(value: unknown, gold: number): boolean {
  if (typeof value === 'number') return value === gold;
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (/^[+-]?\d+$/.test(text)) return BigInt(text) === BigInt(gold);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return false;
  return Number(text) === gold;
}

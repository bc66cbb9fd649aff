import type { Policy } from './policy.js';

/**
 * Commits to a class at its k-th occurrence (the first eligible one at or after k).
 * k = 1 is the eager policy: commit at first sight.
 */
export function commitAtK(k: number): Policy {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`commit-at-k: k must be a positive integer, got ${k}`);
  return {
    name: k === 1 ? 'eager' : `commit-at-${k}`,
    decide: (observation) => (observation.occurrence >= k ? 'commit' : 'pass'),
  };
}

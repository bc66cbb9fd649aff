import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { InputError } from '../errors.js';
import { createRng } from '../random/rng.js';
import type { Observation } from '../session/observation.js';
import { rolloutDifference, rolloutScratch, type RolloutStart } from './bayes-rollout.js';
import type { Policy } from './policy.js';

/*
 * The online Bayesian comparator (Appendix B.4 footnote): an agent with the
 * model's information — the class history, T, B, K and the disclosed N — and a
 * symmetric Dirichlet(alpha) prior over the N class rates.
 *
 * It decides by rollout, one step of policy improvement over the
 * defer-then-confirm heuristic: under the posterior Dirichlet(alpha + counts)
 * it estimates the expected net of committing now and of passing now, each
 * followed by the heuristic, and commits when committing is better. With exact
 * expectations this is at least as good as the heuristic under the prior.
 *
 * Rollouts come in batches until the sign of the mean difference is resolved
 * (|mean| > 3 standard errors) or the sample cap is reached, so marginal states
 * get precise answers. Randomness is seeded from the decision's state, so a
 * decision is a pure function of the observation, and it is memoized.
 */

const BATCH = 1024;
const MAX_SAMPLES = 64 * BATCH;
const RESOLVED_AT = 3;
const MEMO_LIMIT = 200_000;

export function bayesPolicy(alpha: number): Policy {
  if (!(alpha > 0)) throw new InputError(`bayes: alpha must be positive, got ${alpha}`);
  const memo = new Map<string, boolean>();
  return {
    name: `bayes(alpha=${alpha})`,
    decide: (observation) => {
      const start = rolloutStart(observation, alpha);
      const key = stateKey(start);
      let commit = memo.get(key);
      if (commit === undefined) {
        if (memo.size >= MEMO_LIMIT) memo.clear();
        commit = expectedAdvantage(start, key) > 0;
        memo.set(key, commit);
      }
      return commit ? 'commit' : 'pass';
    },
  };
}

function rolloutStart(o: Observation, alpha: number): RolloutStart {
  const classCount = o.classCount;
  if (classCount === null) throw new InputError('bayes: the policy needs the number of classes N to be disclosed');
  const unseen = classCount - o.counts.length;
  if (unseen < 0) throw new InputError(`bayes: ${o.counts.length} classes seen but N = ${classCount}`);
  const others: number[] = [];
  for (let label = 0; label < o.counts.length; label++) {
    if (label !== o.label && !o.held.includes(label)) others.push(o.counts[label] as number);
  }
  // Sorted, so states that differ only by labels share a key.
  const unheld = [o.occurrence, ...others.concat(new Array<number>(unseen).fill(0)).sort((a, b) => b - a)];
  const heldItems = o.turn - unheld.reduce((sum, count) => sum + count, 0);
  const shapes = Float64Array.from([...unheld.map((count) => alpha + count), alpha * o.held.length + heldItems]);
  return {
    shapes,
    counts: Int32Array.from([...unheld, 0]),
    turn: o.turn,
    horizon: o.horizon,
    remaining: o.remaining,
    charge: o.charge,
    alpha,
    classCount,
  };
}

function stateKey(s: RolloutStart): string {
  return `${s.alpha}|${s.classCount}|${s.turn}/${s.horizon}|${s.remaining}|${s.charge}|${s.shapes.join(',')}`;
}

/** Mean of net(commit now) - net(pass now) over adaptively many posterior rollouts. */
function expectedAdvantage(start: RolloutStart, key: string): number {
  const seed = new DataView(sha256(utf8ToBytes(key)).buffer).getUint32(0);
  const rng = createRng(seed);
  const scratch = rolloutScratch(start.shapes.length);
  let [n, sum, sumSquares] = [0, 0, 0];
  while (n < MAX_SAMPLES) {
    for (let i = 0; i < BATCH; i++) {
      const difference = rolloutDifference(start, rng, scratch);
      sum += difference;
      sumSquares += difference * difference;
    }
    n += BATCH;
    const mean = sum / n;
    const standardError = Math.sqrt(Math.max(0, sumSquares / n - mean * mean) / n);
    if (Math.abs(mean) > RESOLVED_AT * standardError) break;
  }
  return sum / n;
}

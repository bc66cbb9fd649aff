import { sampleGamma } from '../random/gamma.js';
import { randomUnit, type Rng } from '../random/rng.js';

/**
 * A decision as the Bayesian comparator's rollouts see it. Slot 0 is the
 * current class, then the other unheld classes (unseen ones included), and the
 * last slot pools every held class: their draws credit both worlds alike.
 */
export interface RolloutStart {
  /** Posterior Dirichlet parameters per slot: alpha + count (alpha * |M| + held counts for the pooled slot). */
  readonly shapes: Float64Array;
  /** Counts so far per unheld slot (the pooled held slot is ignored). */
  readonly counts: Int32Array;
  readonly turn: number;
  readonly horizon: number;
  readonly remaining: number;
  readonly charge: number;
  readonly alpha: number;
  readonly classCount: number;
}

/** Reusable buffers, so a rollout allocates nothing. */
export interface RolloutScratch {
  readonly rates: Float64Array;
  readonly counts: Int32Array;
  readonly heldNow: Uint8Array;
  readonly heldLater: Uint8Array;
}

export function rolloutScratch(slots: number): RolloutScratch {
  return {
    rates: new Float64Array(slots),
    counts: new Int32Array(slots),
    heldNow: new Uint8Array(slots),
    heldLater: new Uint8Array(slots),
  };
}

/**
 * One rollout: draws rates from the posterior and the rest of the stream from
 * them, and plays two worlds on the same draws — "commit now" and "pass now" —
 * each continuing with the base heuristic (commit at a class's second
 * occurrence when its posterior expected remaining count, this item included,
 * exceeds the charge). Returns net(commit now) - net(pass now).
 */
export function rolloutDifference(start: RolloutStart, rng: Rng, scratch: RolloutScratch): number {
  const { shapes, horizon, charge, alpha, classCount } = start;
  const { rates, counts, heldNow, heldLater } = scratch;
  const slots = shapes.length;
  const pooled = slots - 1;
  let total = 0;
  for (let j = 0; j < slots; j++) {
    const shape = shapes[j] as number;
    rates[j] = shape > 0 ? sampleGamma(rng, shape) : 0;
    total += rates[j] as number;
  }
  counts.set(start.counts);
  heldNow.fill(0);
  heldLater.fill(0);
  heldNow[0] = 1;
  let budgetNow = start.remaining - 1;
  let budgetLater = start.remaining;
  let difference = 1 - charge;
  const worthCommitting = (slot: number, turn: number) =>
    (counts[slot] as number) >= 2 && 1 + ((horizon - turn) * (alpha + (counts[slot] as number))) / (classCount * alpha + turn) > charge;
  for (let turn = start.turn + 1; turn <= horizon; turn++) {
    let u = randomUnit(rng) * total;
    let slot = 0;
    while (slot < pooled && u >= (rates[slot] as number)) u -= rates[slot++] as number;
    if (slot === pooled) continue;
    counts[slot] = (counts[slot] as number) + 1;
    if (heldNow[slot]) difference += 1;
    else if (budgetNow > 0 && worthCommitting(slot, turn)) {
      heldNow[slot] = 1;
      budgetNow--;
      difference += 1 - charge;
    }
    if (heldLater[slot]) difference -= 1;
    else if (budgetLater > 0 && worthCommitting(slot, turn)) {
      heldLater[slot] = 1;
      budgetLater--;
      difference -= 1 - charge;
    }
  }
  return difference;
}

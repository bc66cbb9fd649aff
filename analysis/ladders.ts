import type { Arm, ArmKey } from './arms.js';
import type { SeedSession } from './stats/seed-session.js';

export const LADDER_RUNGS = ['R0', 'R1', 'R2', 'R3'] as const;
export type LadderRung = (typeof LADDER_RUNGS)[number];

/** One model's framing ladder: its K = 0 arms on the ball urn and the problem rungs, same B, N disclosure and magnitude. */
export interface Ladder {
  readonly key: Omit<ArmKey, 'rung' | 'reskin' | 'charge'>;
  readonly rungs: Partial<Record<LadderRung, Arm>>;
}

export function ladders(arms: readonly Arm[]): Ladder[] {
  const found = new Map<string, Ladder>();
  for (const arm of arms) {
    const { model, rung, reskin, announceN, budget, charge, magnitude } = arm.key;
    if (charge !== 0 || !(LADDER_RUNGS as readonly string[]).includes(rung) || (reskin !== null && reskin !== 'ball')) continue;
    const key = { model, announceN, budget, magnitude };
    const id = JSON.stringify(key);
    const ladder = found.get(id) ?? { key, rungs: {} };
    (ladder.rungs as Record<string, Arm>)[rung] = arm;
    found.set(id, ladder);
  }
  return [...found.values()];
}

/** The two arms' sessions on the seeds both have, for a paired comparison, and how many seeds were left out. */
export function commonSeeds(a: readonly SeedSession[], b: readonly SeedSession[]): { a: SeedSession[]; b: SeedSession[]; dropped: number } {
  const inB = new Set(b.map((s) => s.seed));
  const inA = new Set(a.map((s) => s.seed));
  const keptA = a.filter((s) => inB.has(s.seed));
  const keptB = b.filter((s) => inA.has(s.seed));
  return { a: keptA, b: keptB, dropped: a.length + b.length - keptA.length - keptB.length };
}

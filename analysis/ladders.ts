import type { Arm, ArmKey } from './arms.js';

export const LADDER_RUNGS = ['R0', 'R1', 'R2', 'R3'] as const;
export type LadderRung = (typeof LADDER_RUNGS)[number];
export type ScoredRung = Exclude<LadderRung, 'R3'>;

/**
 * One model's framing ladder: its K = 0 arms on the ball urn and the problem
 * rungs, same B, N disclosure and magnitude. A split agent's R3 arm is not on
 * it: the ladder frames one agent.
 */
export interface Ladder {
  readonly key: Omit<ArmKey, 'source' | 'rung' | 'reskin' | 'charge' | 'economic' | 'builder'>;
  /** The arm of each rung behind the timing measures: first-sight, hazard, commitments, lateness. */
  readonly rungs: Partial<Record<LadderRung, Arm>>;
  /** The arm of each scored rung behind Score (R3 is not scored). */
  readonly scored: Partial<Record<ScoredRung, Arm>>;
}

/**
 * Where a model has several arms for one rung — the authors' dedicated arm and
 * their economic surface's B = 3, K = 0 cell — the paper's tables take
 * (HARNESS.md, "which arm feeds which table cell"): Score from the dedicated
 * arm, and the timing measures from the dedicated arm too except at R2, where
 * the economic cell feeds first-sight. Among dedicated arms the ladder's
 * protocol comes first: empty-fence retries, and the class-bound R3. Lower ranks first.
 */
function rank(arm: Arm, measure: 'timing' | 'score'): number {
  const economic = arm.key.economic;
  const preferEconomic = measure === 'timing' && arm.key.rung === 'R2';
  const source = arm.key.source ?? '';
  return (economic === preferEconomic ? 0 : 4) + (/_efr\d/.test(source) ? 0 : 2) + (source.includes('class-bound') ? 0 : 1);
}

function best(candidates: readonly Arm[], measure: 'timing' | 'score'): Arm | undefined {
  return [...candidates].sort((a, b) => rank(a, measure) - rank(b, measure))[0];
}

export function ladders(arms: readonly Arm[]): Ladder[] {
  const found = new Map<string, { key: Ladder['key']; candidates: Map<LadderRung, Arm[]> }>();
  for (const arm of arms) {
    const { model, builder, rung, reskin, announceN, budget, charge, magnitude } = arm.key;
    if (builder !== null || charge !== 0 || !(LADDER_RUNGS as readonly string[]).includes(rung) || (reskin !== null && reskin !== 'ball'))
      continue;
    const key = { model, announceN, budget, magnitude };
    const id = JSON.stringify(key);
    const ladder = found.get(id) ?? { key, candidates: new Map<LadderRung, Arm[]>() };
    ladder.candidates.set(rung as LadderRung, [...(ladder.candidates.get(rung as LadderRung) ?? []), arm]);
    found.set(id, ladder);
  }
  // The authors' economic cells feed a ladder only beside a model's dedicated arms (GPT's R0 and R2 at B = 3);
  // a budget with economic cells alone (B = 1, 5) is the economic surface, not a ladder.
  const dedicated = (arms: readonly Arm[]) => arms.some((arm) => !arm.key.economic);
  const kept = [...found.values()].filter(({ candidates }) => [...candidates.values()].some(dedicated));
  // The urn shows no numbers, so its arms stand beside a model's problem rungs at any magnitude: a ladder run at
  // another magnitude (the paper's Opus R3 at 1000) borrows the R0 of the model's ladder that has one.
  for (const ladder of kept) {
    if (ladder.candidates.has('R0')) continue;
    const { model, announceN, budget } = ladder.key;
    const urn = kept.find(
      (other) =>
        other.candidates.has('R0') &&
        JSON.stringify({ ...other.key, magnitude: 0 }) === JSON.stringify({ model, announceN, budget, magnitude: 0 }),
    );
    const r0 = urn?.candidates.get('R0');
    if (r0) ladder.candidates.set('R0', r0);
  }
  return kept.map(({ key, candidates }) => {
    const rungs: Partial<Record<LadderRung, Arm>> = {};
    const scored: Partial<Record<ScoredRung, Arm>> = {};
    for (const [rung, arms] of candidates) {
      rungs[rung] = best(arms, 'timing');
      if (rung !== 'R3') scored[rung] = best(arms, 'score');
    }
    return { key, rungs, scored };
  });
}

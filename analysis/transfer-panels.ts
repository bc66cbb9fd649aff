import type { Arm } from './arms.js';
import { ladders, type Ladder, type LadderRung } from './ladders.js';
import { poolPerSeed } from './stats/pool-per-seed.js';
import { pairSeeds, type SeedSession } from './stats/seed-session.js';

/** The transfer figure's panels (Figure 4), in ladder order: the urn, its reskins pooled, the probe pooled over vocabularies, the rungs. */
export const TRANSFER_STEPS = ['R0', 'reskins', 'probe', 'R1', 'R2', 'R3'] as const;
export type TransferStep = (typeof TRANSFER_STEPS)[number];

export interface TransferPanel {
  readonly name: string;
  /** The figure's panel this one is; none for a single reskin, or one probe vocabulary beside others. */
  readonly step?: TransferStep;
  /** The key of model a's ladder the panel belongs to (one object per ladder). */
  readonly ladder: Ladder['key'];
  readonly a: readonly SeedSession[];
  /** Empty when the table shows one model. */
  readonly b: readonly SeedSession[];
  /** Seeds both arms ran whose streams differ: not paired. */
  readonly refused?: readonly number[];
  /** The scored rungs' arms behind Score, which may differ from the timing arm (HARNESS.md). */
  readonly scored?: { readonly a: readonly SeedSession[]; readonly b: readonly SeedSession[] };
}

const paired = (a: Arm, b: Arm | undefined) => (b ? pairSeeds(a.sessions, b.sessions) : { a: a.sessions, b: [] });

/**
 * The panels of model a's framing ladders (with b, those b has too, on the
 * same N disclosure, B and magnitude, paired on the seeds whose streams agree):
 * each rung's arm as the paper's tables take it (analysis/ladders.ts), then the
 * urn's reskins one by one and pooled per seed, and the probe, its
 * vocabularies pooled (the paper's probe row pools the plain and the reskinned
 * tool-call arms). The transfer table and figure both read them.
 */
export function transferPanels(arms: readonly Arm[], a: string, b: string | undefined): TransferPanel[] {
  const all = ladders(arms);
  const found: TransferPanel[] = [];
  for (const left of all.filter((ladder) => ladder.key.model === a)) {
    const ladderKey = left.key;
    const right =
      b === undefined
        ? undefined
        : all.find(
            (ladder) =>
              ladder.key.model === b && JSON.stringify({ ...ladder.key, model: '' }) === JSON.stringify({ ...left.key, model: '' }),
          );
    if (b !== undefined && !right) continue;
    const setting = left.key.budget !== 3 ? ` · B${left.key.budget}` : '';
    const side = (model: string) => (arm: Arm) =>
      arm.key.model === model &&
      arm.key.charge === 0 &&
      arm.key.budget === left.key.budget &&
      arm.key.magnitude === left.key.magnitude &&
      arm.key.announceN === left.key.announceN;
    const extra = (model: string | undefined, rung: 'R0' | 'probe') =>
      model === undefined
        ? []
        : arms.filter((arm) => side(model)(arm) && arm.key.rung === rung && (rung === 'probe' || (arm.key.reskin ?? 'ball') !== 'ball'));
    const pools = {
      reskins: { a: [] as SeedSession[], b: [] as SeedSession[] },
      probe: { a: [] as SeedSession[], b: [] as SeedSession[] },
    };
    const urnPanels = (rung: 'R0' | 'probe', pool: { a: SeedSession[]; b: SeedSession[] }) => {
      const panelsHere: TransferPanel[] = [];
      for (const arm of extra(a, rung)) {
        const other = extra(b, rung).find((candidate) => candidate.key.reskin === arm.key.reskin);
        if (b !== undefined && !other) continue;
        const pair = paired(arm, other);
        const name = `${rung}${arm.key.reskin && arm.key.reskin !== 'ball' ? ` · ${arm.key.reskin}` : ''}${setting}`;
        panelsHere.push({ name, ladder: ladderKey, ...pair });
        pool.a.push(...pair.a);
        pool.b.push(...pair.b);
      }
      return panelsHere;
    };
    const rungPanel = (rung: LadderRung): TransferPanel[] => {
      const arm = left.rungs[rung];
      const other = right?.rungs[rung];
      if (!arm || (b !== undefined && !other)) return [];
      const scoredA = rung === 'R3' ? undefined : left.scored[rung];
      const scoredB = rung === 'R3' ? undefined : right?.scored[rung];
      const scored = scoredA && (b === undefined || scoredB) ? paired(scoredA, scoredB) : undefined;
      return [{ name: `${rung}${setting}`, step: rung, ladder: ladderKey, ...paired(arm, other), ...(scored && { scored }) }];
    };
    const reskins = urnPanels('R0', pools.reskins);
    const probes = urnPanels('probe', pools.probe);
    const pooled = (name: string, step: TransferStep, pool: { a: SeedSession[]; b: SeedSession[] }): TransferPanel => ({
      name: `${name}${setting}`,
      step,
      ladder: ladderKey,
      a: poolPerSeed(pool.a),
      b: poolPerSeed(pool.b),
    });
    found.push(
      ...rungPanel('R0'),
      ...reskins,
      ...(reskins.length > 0 ? [pooled('reskins (pooled)', 'reskins', pools.reskins)] : []),
      // A single probe vocabulary is the probe's panel itself.
      ...(probes.length === 1 ? probes.map((panel) => ({ ...panel, step: 'probe' as const })) : probes),
      ...(probes.length > 1 ? [pooled('probe (pooled)', 'probe', pools.probe)] : []),
      ...rungPanel('R1'),
      ...rungPanel('R2'),
      ...rungPanel('R3'),
    );
  }
  return found;
}

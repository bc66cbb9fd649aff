import { FAMILY_NAMES } from '../../core/families/family.js';
import { commitAtK } from '../../core/policies/commit-at-k.js';
import { runSession } from '../../core/session/run-session.js';
import { classSequence, type Stream } from '../../core/stream/stream.js';
import type { Arm } from '../arms.js';
import type {
  EconomicCell,
  Estimate,
  LadderInput,
  ModelFirstSight,
  ModelScores,
  OptimalPolicyInput,
  TransferInput,
} from '../figures/index.js';
import { LADDER_RUNGS, type Ladder } from '../ladders.js';
import { pairSeeds } from '../stats/seed-session.js';
import type { BootstrapEstimate } from '../stats/bootstrap.js';
import { marginalEstimate, repooledDifference } from '../stats/contrasts.js';
import { seedValue } from '../stats/ratio-estimands.js';
import type { SeedSession } from '../stats/seed-session.js';
import { optimumOnArm } from '../stats/optimum-on-arm.js';
import { economicArms } from '../tables/economic-tables.js';
import { TRANSFER_STEPS, transferPanels, type TransferStep } from '../transfer-panels.js';

/** A figure plots defined estimates only. */
const estimateOf = (e: BootstrapEstimate): Estimate | null =>
  e.estimate === null || e.interval === null ? null : { value: e.estimate, interval: e.interval };

const letter = (label: number) => String.fromCharCode(65 + label);

/** Figure 1: the defer-then-confirm policy (commit at the second occurrence) on one seed's first 15 items. */
export function optimalPolicyData(stream: Stream, budget: number): OptimalPolicyInput {
  const { items } = stream;
  const classes = classSequence(stream);
  const record = runSession(classes, { budget, charge: 0, classCount: FAMILY_NAMES.length }, commitAtK(2));
  const labels: number[] = [];
  const built = new Set<number>();
  const roles: Record<string, 'hot' | 'trap'> = {};
  const shown = items.slice(0, 15).map((item, index) => {
    const classId = classes[index] as number;
    labels[classId] ??= Object.keys(roles).length;
    const label = letter(labels[classId]);
    roles[label] = item.role;
    const committed = record.decisions.some((d) => d.t === index + 1 && d.action === 'commit');
    const action = built.has(classId) ? 'collected' : committed ? 'build' : 'pass';
    if (committed) built.add(classId);
    return { label, action } as const;
  });
  return { items: shown, roles };
}

/** Figure 2: R0 versus R3 first-sight per model, per seed and pooled. */
export function coreFirstSightData(list: readonly Ladder[]): ModelFirstSight[] {
  return list.flatMap((ladder) => {
    const r0 = ladder.rungs.R0?.sessions;
    const r3 = ladder.rungs.R3?.sessions;
    if (!r0 || !r3) return [];
    const paired = pairSeeds(r0, r3);
    const pooledR0 = estimateOf(marginalEstimate('firstSight', paired.a));
    const pooledR3 = estimateOf(marginalEstimate('firstSight', paired.b));
    if (!pooledR0 || !pooledR3) return [];
    const rate = (s: SeedSession | undefined) => (s ? seedValue('firstSight', s.metrics) : null);
    return [
      {
        model: ladder.key.model,
        seeds: paired.a.map((a, i) => ({
          seed: a.seed,
          r0: rate(a),
          r3: rate(paired.b[i]),
          r3Builds: paired.b[i]?.metrics.commitments ?? 0,
        })),
        pooled: { r0: pooledR0, r3: pooledR3 },
      },
    ];
  });
}

/** Figure 3: Score at R0 versus R2 per model. */
export function scoreData(list: readonly Ladder[]): ModelScores[] {
  return list.flatMap((ladder) => {
    const r0 = ladder.scored.R0 && estimateOf(marginalEstimate('score', ladder.scored.R0.sessions));
    const r2 = ladder.scored.R2 && estimateOf(marginalEstimate('score', ladder.scored.R2.sessions));
    return r0 && r2 ? [{ model: ladder.key.model, r0, r2 }] : [];
  });
}

/** Figure 4: pooled first-sight by rung per model. */
export function ladderData(list: readonly Ladder[]): LadderInput {
  const models = list.map((ladder) => {
    const rates: Record<string, Estimate> = {};
    for (const rung of LADDER_RUNGS) {
      const arm = ladder.rungs[rung];
      const estimate = arm && estimateOf(marginalEstimate('firstSight', arm.sessions));
      if (estimate) rates[rung] = estimate;
    }
    return { model: ladder.key.model, rates };
  });
  return { rungs: [...LADDER_RUNGS], models: models.filter((m) => Object.keys(m.rates).length > 0) };
}

/** The transfer figure's tick labels, after Table F's panel names (two lines each, to fit a panel's width). */
const TRANSFER_LABELS: Record<TransferStep, string> = {
  R0: 'Abstract urn\n(R0)',
  reskins: 'Reskins\n(pooled)',
  probe: 'Keep/pass\ntool call',
  R1: 'Declarative\nclaim (R1)',
  R2: 'Code claim\n(R2)',
  R3: 'Script\n(R3)',
};

/**
 * Figure 4: A's and B's pooled first-sight per transfer panel with the paired
 * B − A interval, from the panels the transfer table shows; on the first of
 * a's ladders that b ran too (where they ran several: N disclosure, B, magnitude).
 * Null where they share no panel.
 */
export function transferData(arms: readonly Arm[], a: string, b: string): TransferInput | null {
  const found = transferPanels(arms, a, b);
  const ladder = found[0]?.ladder;
  const panels = TRANSFER_STEPS.flatMap((step) => {
    const panel = found.find((p) => p.ladder === ladder && p.step === step);
    if (!panel) return [];
    const rates = {
      a: estimateOf(marginalEstimate('firstSight', panel.a)),
      b: estimateOf(marginalEstimate('firstSight', panel.b)),
    };
    if (!rates.a && !rates.b) return [];
    return [{ label: TRANSFER_LABELS[step], ...rates, difference: estimateOf(repooledDifference('firstSight', panel.a, panel.b)) }];
  });
  return panels.length > 0 ? { a, b, panels } : null;
}

/** Figure 5: first-sight hazard against the charge K per budget B, with the hindsight optimum's hazard. */
export function economicData(arms: readonly Arm[]): EconomicCell[] {
  const cells = new Map<string, { budget: number; charge: number; hazard: Record<string, Estimate>; optimum: number }>();
  const severalModels = new Set(arms.map((a) => a.key.model)).size > 1;
  for (const arm of economicArms(arms)) {
    const { budget, charge, rung, model } = arm.key;
    const id = JSON.stringify([budget, charge]);
    const cell = cells.get(id) ?? { budget, charge, hazard: {}, optimum: optimumOnArm(arm).firstSightHazard ?? 0 };
    const estimate = estimateOf(marginalEstimate('firstSightHazard', arm.sessions));
    if (estimate) cell.hazard[severalModels ? `${model} ${rung}` : rung] = estimate;
    cells.set(id, cell);
  }
  return [...cells.values()].filter((cell) => Object.keys(cell.hazard).length > 0);
}

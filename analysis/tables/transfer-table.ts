import { InputError } from '../../core/errors.js';
import { armLabel, varyingFields, type Arm } from '../arms.js';
import { commonSeeds } from '../ladders.js';
import { summarizeArm } from '../stats/arm-summary.js';
import { repooledDifference } from '../stats/contrasts.js';
import { intervalOf } from './interval-cell.js';
import type { Table } from './table.js';

/**
 * Two arms — models, or checkpoints of one model — compared on paired seeds at
 * every framing they share (the transfer ladder of Appendix F): each side's
 * pooled first-sight and Score, and B minus A as re-pooled differences with
 * seeds resampled as clusters.
 */
export function transferTable(arms: readonly Arm[], a: string, b: string): Table {
  const sameFraming = (x: Arm, y: Arm) => JSON.stringify({ ...x.key, model: '' }) === JSON.stringify({ ...y.key, model: '' });
  const pairs = arms.filter((arm) => arm.key.model === a).flatMap((left) => {
    const right = arms.find((arm) => arm.key.model === b && sameFraming(left, arm));
    return right ? [{ left, right, ...commonSeeds(left.sessions, right.sessions) }] : [];
  });
  if (pairs.length === 0) throw new InputError(`compare: no framing has sessions of both ${a} and ${b}`);
  const varies = varyingFields(pairs.map((pair) => pair.left.key));
  varies.delete('model');
  return {
    id: 'transfer',
    title: `${b} against ${a}`,
    caption:
      'Pooled first-sight among commitments and Score on the seeds both arms have, and B − A as the difference of re-pooled ratios with seeds resampled as clusters (10,000 resamples, RNG seed 0, percentile 95% intervals). Score is not given at R3.',
    columns: [
      { name: 'Framing', format: 'text' },
      { name: 'Seeds', format: 'integer' },
      { name: `First-sight ${a}`, format: 'percent' },
      { name: `First-sight ${b}`, format: 'percent' },
      { name: 'Δ first-sight', format: 'points' },
      { name: `Score ${a}`, format: 'percent' },
      { name: `Score ${b}`, format: 'percent' },
      { name: 'Δ Score', format: 'points' },
    ],
    rows: pairs.map(({ left, a: before, b: after }) => {
      const rung = left.key.rung;
      const [x, y] = [summarizeArm(rung, before), summarizeArm(rung, after)];
      const detail = armLabel({ ...left.key, model: '' }, varies).replace(/^ · /, '');
      return [
        detail ? `${rung} · ${detail}` : rung,
        before.length,
        x.firstSight,
        y.firstSight,
        before.length > 0 ? intervalOf(repooledDifference('firstSight', before, after)) : null,
        x.score,
        y.score,
        rung === 'R3' || before.length === 0 ? null : intervalOf(repooledDifference('score', before, after)),
      ];
    }),
  };
}

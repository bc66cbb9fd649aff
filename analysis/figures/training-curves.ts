import type { TopLevelSpec } from 'vega-lite';
import { CONFIG, PALETTE, PERCENT_AXIS, PERCENT_SCALE } from './theme.js';

/** One training run's curve: per outer step, its mean reward, first-sight on its rollouts, and the heuristics on the same streams. */
export interface TrainingCurve {
  readonly name: string;
  /** Pilots of the flat episode-scalar GRPO are drawn in grey, as the paper's figure draws them. */
  readonly pilot: boolean;
  readonly steps: readonly {
    readonly step: number;
    readonly reward: number;
    readonly firstSight: number | null;
    readonly eager: number;
    readonly waitOneRepeat: number;
  }[];
}

const GREY = '#9e9e9e';
const HEURISTICS = { eager: 'eager (heuristic)', waitOneRepeat: 'wait for one repeat (heuristic)' } as const;

/**
 * Figure 6 (fig:rl-training): left, mean training reward (items collected)
 * per outer step for every run, beside the eager and wait-for-one-repeat
 * heuristics on the same training streams (dashed, from the first
 * non-pilot run, else the first); right, first-sight commitment on each run's
 * own training rollouts.
 */
export function trainingCurvesSpec(curves: readonly TrainingCurve[]): TopLevelSpec {
  const runs = curves.map((curve) => curve.name);
  let colour = 0;
  const range = curves.map((curve) => (curve.pilot ? GREY : (PALETTE[colour++ % PALETTE.length] as string)));
  const reference = curves.find((curve) => !curve.pilot) ?? curves[0];
  const rewards = curves.flatMap((curve) => curve.steps.map((s) => ({ series: curve.name, step: s.step, value: s.reward })));
  const heuristics = (reference?.steps ?? []).flatMap((s) => [
    { series: HEURISTICS.eager, step: s.step, value: s.eager },
    { series: HEURISTICS.waitOneRepeat, step: s.step, value: s.waitOneRepeat },
  ]);
  const firstSight = curves.flatMap((curve) =>
    curve.steps.flatMap((s) => (s.firstSight === null ? [] : [{ series: curve.name, step: s.step, value: s.firstSight }])),
  );
  const colourScale = { domain: [...runs, HEURISTICS.eager, HEURISTICS.waitOneRepeat], range: [...range, '#555555', '#000000'] };
  const stepAxis = { field: 'step', type: 'quantitative' as const, title: 'outer step', axis: { tickMinStep: 1 } };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    hconcat: [
      {
        width: 320,
        height: 220,
        layer: [
          {
            data: { values: heuristics },
            mark: { type: 'line', strokeDash: [5, 4], strokeWidth: 1.2 },
            encoding: {
              x: stepAxis,
              y: { field: 'value', type: 'quantitative', title: 'mean training reward (items collected)', scale: { zero: false } },
              color: { field: 'series', type: 'nominal', title: null, scale: colourScale },
            },
          },
          {
            data: { values: rewards },
            mark: { type: 'line', point: true, strokeWidth: 2 },
            encoding: {
              x: stepAxis,
              y: { field: 'value', type: 'quantitative' },
              color: { field: 'series', type: 'nominal', title: null, scale: colourScale },
            },
          },
        ],
      },
      {
        width: 320,
        height: 220,
        data: { values: firstSight },
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: stepAxis,
          y: {
            field: 'value',
            type: 'quantitative',
            title: 'first-sight commitment (training rollouts)',
            scale: PERCENT_SCALE,
            axis: PERCENT_AXIS,
          },
          color: { field: 'series', type: 'nominal', title: null, scale: colourScale },
        },
      },
    ],
    resolve: { scale: { color: 'shared' } },
  } as TopLevelSpec;
}

import { describe, expect, it } from 'vitest';
import { renderFigure } from '../../../analysis/figures/index.js';
import { trainingCurvesSpec, type TrainingCurve } from '../../../analysis/figures/training-curves.js';
import { PALETTE } from '../../../analysis/figures/theme.js';
import { expectWellRendered, markItems } from './inspect.js';

const GREY = '#9e9e9e';

function curve(name: string, pilot: boolean, rewards: readonly number[], eager = 34.9): TrainingCurve {
  return {
    name,
    pilot,
    steps: rewards.map((reward, step) => ({ step, reward, firstSight: 0.7 - step / 20, eager, waitOneRepeat: 43.3 })),
  };
}

// Figure 6's population: four GRPO pilots of 7, 5, 5 and 8 steps, and a 20-step PPO run, listed pilots first.
const curves = [
  curve('grpo-pilot-1', true, [36.4, 37.6, 36.6, 35.6, 36.5, 36.0, 34.6]),
  curve('grpo-pilot-2', true, [37.6, 37.6, 36.1, 35.8, 38.4]),
  curve('grpo-pilot-3', true, [37.4, 36.5, 36.5, 35.2, 36.5]),
  curve('grpo-pilot-4', true, [37.9, 35.6, 36.8, 36.5, 36.5, 37.7, 35.5, 37.4]),
  curve(
    'run2',
    false,
    Array.from({ length: 20 }, (_, step) => 37 + step / 6),
  ),
];
const render = () => renderFigure(trainingCurvesSpec(curves));

/** The stroke colour of each line the figure draws, by the number of points in it. */
function strokesByLength(svg: string): { points: number; stroke: string }[] {
  return markItems(svg, 'line').map((path) => ({
    points: (/d="([^"]*)"/.exec(path)?.[1] ?? '').split(/[ML]/).filter(Boolean).length,
    stroke: /stroke="([^"]*)"/.exec(path)?.[1] ?? '',
  }));
}

describe('training curves (figure 6)', () => {
  it('draws every pilot grey and the PPO run in the first colour of the palette, in both panels', async () => {
    const figure = await render();
    const lines = strokesByLength(figure.svg);
    // Per panel, one line per run; on the left also the two heuristics (20 points each, the PPO run's steps).
    const pilots = lines.filter((line) => line.stroke === GREY);
    expect(pilots.map((line) => line.points).sort()).toEqual([5, 5, 5, 5, 7, 7, 8, 8]);
    const ppo = lines.filter((line) => line.stroke === PALETTE[0]);
    expect(ppo.map((line) => line.points)).toEqual([20, 20]);
    expect(lines.filter((line) => line.stroke === '#555555' || line.stroke === '#000000')).toHaveLength(2);
    expect(lines).toHaveLength(pilots.length + ppo.length + 2);
    await expectWellRendered(figure, render);
  });

  it('takes the heuristics from the first non-pilot run, and colours runs apart from pilots', () => {
    const spec = trainingCurvesSpec([curve('pilot', true, [36, 37], 30), curve('a', false, [35]), curve('b', false, [36], 31)]);
    const text = JSON.stringify(spec);
    expect(text).toContain(`"range":["${GREY}","${PALETTE[0]}","${PALETTE[1]}","#555555","#000000"]`);
    expect(text).toContain(
      '"values":[{"series":"eager (heuristic)","step":0,"value":34.9},{"series":"wait for one repeat (heuristic)","step":0,"value":43.3}]',
    );
  });
});

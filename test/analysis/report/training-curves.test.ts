import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../../analysis/report/write-report.js';

/** A training directory as the trainer writes one: settings.json (the algorithm in its config) and a line per finished step. */
function writeTrainingRun(dir: string, algorithm: string, rewards: readonly number[]) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ config: { algorithm, steps: rewards.length }, versions: {}, features: [] }));
  const lines = rewards.map((reward, step) =>
    JSON.stringify({ step, meanReward: reward, firstSight: 0.7 - step / 10, heuristics: { eager: 36.6, waitOneRepeat: 42.6 } }),
  );
  writeFileSync(join(dir, 'steps.jsonl'), `${lines.join('\n')}\n{"step": "torn"\n`);
}

describe('analyze on training runs', () => {
  it('draws the training curves (rewards beside the heuristics, first-sight per step), pilots in grey, and lists a bad line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'allocbench-training-'));
    writeTrainingRun(join(root, 'run2'), 'ppo', [37.8, 38.4, 39.9]);
    writeTrainingRun(join(root, 'pilot'), 'grpo', [37.1, 36.9]);
    const out = join(root, 'report');
    const summary = await writeReport([join(root, 'run2'), join(root, 'pilot')], out);
    expect(summary).toMatchObject({ sessions: 0, tables: [], figures: ['training-curves'], exclusions: 2 });
    const svg = readFileSync(join(out, 'figures', 'training-curves.svg'), 'utf8');
    for (const label of ['run2', 'pilot', 'eager (heuristic)', 'wait for one repeat (heuristic)', 'outer step'])
      expect(svg).toContain(label);
    expect(svg).toContain('#9e9e9e');
    expect(existsSync(join(out, 'figures', 'training-curves.png'))).toBe(true);
    expect(readFileSync(join(out, 'exclusions.md'), 'utf8')).toMatch(/steps\.jsonl:4: not a step record/);
  });
});

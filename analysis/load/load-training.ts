import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { Exclusion } from './load-runs.js';

/*
 * A training run of the reinforcement-learning study (rl/, `allocbench
 * train`): its settings.json and steps.jsonl, one line per finished outer
 * step. Analysis reads the curves from them, never the checkpoints.
 */

const stepSchema = z.looseObject({
  step: z.number().int().min(0),
  meanReward: z.number(),
  firstSight: z.number().nullable(),
  heuristics: z.looseObject({ eager: z.number(), waitOneRepeat: z.number() }),
  algorithm: z.string().optional(),
});
export type TrainingStep = z.infer<typeof stepSchema>;

export interface TrainingRun {
  readonly dir: string;
  readonly name: string;
  /** 'ppo' (the paper's per-decision PPO) or 'grpo' (the flat episode-scalar pilot). */
  readonly algorithm: string;
  readonly steps: readonly TrainingStep[];
}

export const isTrainingDir = (dir: string) => existsSync(join(dir, 'steps.jsonl')) && existsSync(join(dir, 'settings.json'));

/** A training directory's finished steps; a line that does not read is an exclusion, the others stay. */
export async function loadTraining(dir: string, exclusions: Exclusion[]): Promise<TrainingRun | undefined> {
  // The trainer writes {config: {algorithm, ...}, versions, features}.
  let settings: { config?: { algorithm?: unknown } } = {};
  try {
    settings = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as typeof settings;
  } catch (error) {
    exclusions.push({ what: dir, reason: `unreadable settings.json (${(error as Error).message.split('\n')[0]})` });
    return undefined;
  }
  const steps: TrainingStep[] = [];
  const lines = (await readFile(join(dir, 'steps.jsonl'), 'utf8')).split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: ReturnType<typeof stepSchema.safeParse> | undefined;
    try {
      parsed = stepSchema.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (parsed?.success) steps.push(parsed.data);
    else
      exclusions.push({ what: `${dir}/steps.jsonl:${index + 1}`, reason: 'not a step record (step, meanReward, firstSight, heuristics)' });
  });
  const configured = settings.config?.algorithm;
  const algorithm = typeof configured === 'string' ? configured : (steps[0]?.algorithm ?? 'ppo');
  return { dir, name: basename(dir), algorithm, steps: steps.sort((a, b) => a.step - b.step) };
}

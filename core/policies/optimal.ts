import { InputError } from '../errors.js';
import { FAMILY_NAMES } from '../families/family.js';
import { sessionMetrics } from '../metrics/session-metrics.js';
import type { Observation } from '../session/observation.js';
import { runSession } from '../session/run-session.js';
import type { SessionSetting } from '../session/session-state.js';
import { DEFAULT_STREAM_CONFIG, type StreamConfig } from '../stream/stream-config.js';
import type { HotTrapRecipe } from './hot-trap.js';
import { optimalTable, type BuildChoice, type OptimalTable, type SeenClass } from './optimal-dp.js';
import type { Policy } from './policy.js';

/*
 * `optimal`: the Bayes-optimal online policy under the benchmark's own
 * generator (optimal-dp.ts: exact for T <= 32, the window marks dropped from
 * draw 32 on beyond). Its prior knowledge is the recipe — N classes, H hot
 * sharing the hot mass, the rest traps, a trap forced among the first W
 * items — never a stream's roles or rates. It decides from what a model sees:
 * the class history (labels by first appearance, their counts, and which
 * labels first appeared within the first W turns: Observation.firstTurns),
 * the held labels, t, T, B, b and K. N is the disclosed one when the prompt
 * discloses it, else the recipe's.
 */

/** The paper's generator: 8 families, 3 hot sharing 0.85, a trap among the first 3 items. */
export const BENCHMARK_RECIPE: HotTrapRecipe = {
  classCount: FAMILY_NAMES.length,
  hotCount: DEFAULT_STREAM_CONFIG.hotCount,
  hotMass: DEFAULT_STREAM_CONFIG.hotMass,
  window: DEFAULT_STREAM_CONFIG.budget,
};

/** The recipe of a stream config's generator: its hot count and mass, and its trap window (the config's `budget`). */
export function recipeOf(config: StreamConfig): HotTrapRecipe {
  return { classCount: FAMILY_NAMES.length, hotCount: config.hotCount, hotMass: config.hotMass, window: config.budget };
}

export function optimalPolicy(recipe: Partial<HotTrapRecipe> = {}): Policy {
  const full = { ...BENCHMARK_RECIPE, ...recipe };
  // The table of the last setting seen, so the hot path skips the shared cache's key.
  let last: { key: readonly number[]; table: OptimalTable } | undefined;
  const name =
    full.hotCount === BENCHMARK_RECIPE.hotCount && full.hotMass === BENCHMARK_RECIPE.hotMass && full.window === BENCHMARK_RECIPE.window
      ? 'optimal'
      : `optimal(H=${full.hotCount}, hot mass=${full.hotMass}, window=${full.window})`;
  return {
    name,
    decide: (o) => {
      const classCount = o.classCount ?? full.classCount;
      const budget = o.held.length + o.remaining;
      const key = [o.horizon, budget, o.charge, classCount];
      if (!last || key.some((v, i) => v !== last?.key[i])) {
        last = { key, table: optimalTable({ ...full, classCount, horizon: o.horizon, budget, charge: o.charge }) };
      }
      return optimalChoiceWith(last.table, o).commit ? 'commit' : 'pass';
    },
  };
}

/** The state before the current arrival, and which of its classes arrives (-1: an unseen one). */
export function optimalStateBefore(o: Observation, window: number): { classes: SeenClass[]; arriving: number } {
  const s = o.turn - 1;
  const total = o.counts.reduce((sum, c) => sum + c, 0);
  if (total !== o.turn) throw new InputError(`optimal: the counts sum to ${total} at turn ${o.turn}`);
  const W = Math.min(window, o.horizon);
  const held = new Set(o.held);
  const classes: SeenClass[] = [];
  let arriving = -1;
  const before = o.counts.map((c, label) => c - (label === o.label ? 1 : 0));
  const seenBefore = before.filter((c) => c > 0).length;
  for (let label = 0; label < before.length; label++) {
    const count = before[label] as number;
    if (count === 0) continue;
    let inWindow: boolean;
    const first = o.firstTurns?.[label];
    if (first !== undefined) inWindow = first <= W;
    else if (s <= W || seenBefore === 1) inWindow = true;
    else throw new InputError("optimal: the observation lacks the labels' first turns, which the policy needs after the trap window");
    if (label === o.label) arriving = classes.length;
    classes.push({ count, built: held.has(label), window: inWindow });
  }
  return { classes, arriving };
}

function optimalChoiceWith(table: OptimalTable, o: Observation): BuildChoice {
  const { classes, arriving } = optimalStateBefore(o, table.setting.window);
  return table.choose(classes, arriving);
}

/** The table's pass and build values at an observation. */
export function optimalChoice(o: Observation, recipe: Partial<HotTrapRecipe> = {}): BuildChoice {
  const full = { ...BENCHMARK_RECIPE, ...recipe };
  const classCount = o.classCount ?? full.classCount;
  const table = optimalTable({ ...full, classCount, horizon: o.horizon, budget: o.held.length + o.remaining, charge: o.charge });
  return optimalChoiceWith(table, o);
}

/** What the policy collects on a class sequence (T = its length), in items and in net of the charge. */
export function optimalRealized(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  recipe: Partial<HotTrapRecipe> = {},
): { collected: number; net: number; commitments: number } {
  const metrics = sessionMetrics(runSession(classes, setting, optimalPolicy(recipe)));
  return { collected: metrics.utility, net: metrics.net, commitments: metrics.commitments };
}

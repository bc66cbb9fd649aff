import { FAMILY_NAMES } from '../core/families/family.js';
import { optimalChoice, recipeOf } from '../core/policies/optimal.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Action } from '../core/session/session-state.js';
import { SessionWalk } from '../core/session/session-walk.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';

/** What policy/optimal would do in the state of one decision turn, and what the session's decision cost against it. */
export interface TurnOptimum {
  readonly t: number;
  /** The session's decision (an unresolved turn counts as a pass). */
  readonly action: Action;
  readonly resolved: boolean;
  /** policy/optimal's choice in the same state: build only when strictly better. */
  readonly optimum: Action;
  /** Expected future net (policy/optimal playing on from the next item) if the item is passed. */
  readonly pass: number;
  /** The same if its class is built now (1 − K included); null without budget. */
  readonly build: number | null;
  /** The optimum's value less the decision's: 0 when the decision is the optimum's (or ties it). */
  readonly regret: number;
}

export type OptimumSetting = Pick<SessionSpec, 'budget' | 'charge' | 'announceN' | 'stream'>;

/**
 * policy/optimal's choice and values at every decision turn the session took
 * (in the state its own earlier decisions made), from the table of
 * core/policies/optimal-dp.ts: the value of an action is the expected future
 * net when the optimum plays on after it, so a turn's regret is the expected
 * net that decision alone gave up. Turns never reached (truncated) end the list.
 */
export function turnOptima(classes: readonly number[], setting: OptimumSetting, decisions: readonly DecisionRecord[]): TurnOptimum[] {
  const walk = new SessionWalk(
    { budget: setting.budget, charge: setting.charge, classCount: setting.announceN ? FAMILY_NAMES.length : null },
    classes.length,
  );
  const recipe = recipeOf(setting.stream);
  const turns: TurnOptimum[] = [];
  let next = 0;
  for (const classId of classes) {
    const arrival = walk.arrive(classId);
    if (arrival.kind !== 'decide') continue;
    const decision = decisions[next++];
    if (!decision || decision.failure === 'truncated') break;
    if (decision.t !== arrival.t) throw new Error(`decision ${next} is at turn ${decision.t}, the stream's decision turn is ${arrival.t}`);
    const choice = optimalChoice(walk.observation(true), recipe);
    const value = (action: Action) => (action === 'commit' ? choice.build : choice.pass);
    const optimum: Action = choice.commit ? 'commit' : 'pass';
    turns.push({
      t: arrival.t,
      action: decision.action,
      resolved: decision.resolved,
      optimum,
      pass: choice.pass,
      build: Number.isFinite(choice.build) ? choice.build : null,
      regret: Math.max(0, value(optimum) - value(decision.action)),
    });
    walk.decide(decision.action);
  }
  return turns;
}

import type { Observation } from './observation.js';
import type { DecisionRecord } from './session-record.js';
import type { SessionSetting } from './session-state.js';
import type { Action } from './session-state.js';
import { SessionWalk } from './session-walk.js';

/** A credited item that needed no decision, as the agent sees it. */
export interface AutoCredit {
  readonly t: number;
  readonly label: number;
}

/** The next decision of a session, with what the agent is shown there. */
export interface DecisionPoint {
  readonly t: number;
  readonly classId: number;
  readonly observation: Observation;
  /** Items credited automatically since the previous decision turn. */
  readonly autoCredited: readonly AutoCredit[];
}

/** What a decision turn's outcome needs to be replayed. */
export interface Decided {
  readonly action: Action;
}

/**
 * Replays the session rules over `classes` with the decisions taken so far
 * (in decision-turn order) and returns the next turn that needs a decision, or
 * null when none remains.
 */
export function nextDecisionPoint(classes: ArrayLike<number>, setting: SessionSetting, decided: readonly Decided[]): DecisionPoint | null {
  const walk = new SessionWalk(setting, classes.length);
  let autoCredited: AutoCredit[] = [];
  let next = 0;
  for (let index = 0; index < classes.length; index++) {
    const arrival = walk.arrive(classes[index] as number);
    if (arrival.kind === 'credit') autoCredited.push({ t: arrival.t, label: arrival.label });
    if (arrival.kind !== 'decide') continue;
    const decision = decided[next++];
    if (!decision) {
      return { t: arrival.t, classId: arrival.classId, observation: walk.observation(true), autoCredited };
    }
    autoCredited = [];
    walk.decide(decision.action);
  }
  if (next !== decided.length) throw new Error(`${decided.length - next} decisions fall after the last decision turn`);
  return null;
}

/** The decisions of a session that stopped early, completed with 'truncated' passes for the turns it never reached. */
export function withTruncatedTail(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  decisions: readonly DecisionRecord[],
): DecisionRecord[] {
  return completed(classes, setting, decisions, { resolved: false, failure: 'truncated' });
}

/**
 * The decisions of a session completed as R3 counts a session that stopped
 * (HARNESS.md, R3): the turns it never reached are passes, so first
 * occurrences after it ended stay eligible. A split agent's planner is scored so.
 */
export function withPassedTail(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  decisions: readonly DecisionRecord[],
): DecisionRecord[] {
  return completed(classes, setting, decisions, { resolved: true });
}

function completed(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  decisions: readonly DecisionRecord[],
  fill: Pick<DecisionRecord, 'resolved' | 'failure'>,
): DecisionRecord[] {
  const complete = [...decisions];
  for (let point = nextDecisionPoint(classes, setting, complete); point; point = nextDecisionPoint(classes, setting, complete)) {
    complete.push({ t: point.t, classId: point.classId, occurrence: point.observation.occurrence, action: 'pass', ...fill });
  }
  return complete;
}

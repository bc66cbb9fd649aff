import { ClassHistory } from './class-history.js';
import type { Observation } from './observation.js';
import type { DecisionRecord } from './session-record.js';
import type { SessionSetting } from './run-session.js';
import { advance, remainingBudget, startSession, turnKind, type Action } from './session-state.js';

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
  /** The previous decision turn's outcome, if there was one. */
  readonly previous?: { readonly label: number; readonly action: Action; readonly resolved: boolean };
}

/** What a decision turn's outcome needs to be replayed; `resolved` only matters for the urn's feedback line. */
export interface Decided {
  readonly action: Action;
  readonly resolved?: boolean;
}

/**
 * Replays the session rules over `classes` with the decisions taken so far
 * (in decision-turn order) and returns the next turn that needs a decision, or
 * null when none remains.
 */
export function nextDecisionPoint(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  decided: readonly Decided[],
): DecisionPoint | null {
  let state = startSession(setting);
  const history = new ClassHistory();
  const heldLabels: number[] = [];
  let autoCredited: AutoCredit[] = [];
  let previous: DecisionPoint['previous'];
  let next = 0;
  for (let index = 0; index < classes.length; index++) {
    const classId = classes[index] as number;
    const t = index + 1;
    const { label, occurrence } = history.record(classId);
    const kind = turnKind(state, classId);
    if (kind === 'credit') autoCredited.push({ t, label });
    if (kind !== 'decide') {
      state = advance(state, classId);
      continue;
    }
    const decision = decided[next++];
    if (!decision) {
      const observation: Observation = {
        turn: t,
        horizon: classes.length,
        budget: setting.budget,
        remaining: remainingBudget(state),
        charge: setting.charge,
        classCount: setting.classCount,
        label,
        occurrence,
        counts: [...history.counts],
        held: [...heldLabels],
      };
      return { t, classId, observation, autoCredited, ...(previous && { previous }) };
    }
    if (decision.action === 'commit') heldLabels.push(label);
    previous = { label, action: decision.action, resolved: decision.resolved ?? true };
    autoCredited = [];
    state = advance(state, classId, decision.action);
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
  const complete = [...decisions];
  for (let point = nextDecisionPoint(classes, setting, complete); point; point = nextDecisionPoint(classes, setting, complete)) {
    complete.push({
      t: point.t,
      classId: point.classId,
      occurrence: point.observation.occurrence,
      action: 'pass',
      resolved: false,
      failure: 'truncated',
    });
  }
  return complete;
}

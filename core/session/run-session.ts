import type { Policy } from '../policies/policy.js';
import { ClassHistory } from './class-history.js';
import type { Observation } from './observation.js';
import type { DecisionRecord, SessionRecord } from './session-record.js';
import { advance, remainingBudget, startSession, turnKind, type SessionRules } from './session-state.js';

/** Rules plus what the agent is told about the class count. */
export interface SessionSetting extends SessionRules {
  /** N when disclosed to the agent, else null. */
  readonly classCount: number | null;
}

/** Plays a policy through a class sequence in process, following the session rules. */
export function runSession(classes: ArrayLike<number>, setting: SessionSetting, policy: Policy): SessionRecord {
  const rules = { budget: setting.budget, charge: setting.charge };
  let state = startSession(rules);
  const history = new ClassHistory();
  const heldLabels: number[] = [];
  const decisions: DecisionRecord[] = [];
  // Copied in the loop: Array.from on a typed array costs more than the whole session.
  const classList = new Array<number>(classes.length);
  for (let index = 0; index < classes.length; index++) {
    const classId = classes[index] as number;
    classList[index] = classId;
    const { label, occurrence } = history.record(classId);
    if (turnKind(state, classId) !== 'decide') {
      state = advance(state, classId);
      continue;
    }
    const observation: Observation = {
      turn: index + 1,
      horizon: classes.length,
      budget: setting.budget,
      remaining: remainingBudget(state),
      charge: setting.charge,
      classCount: setting.classCount,
      label,
      occurrence,
      counts: history.counts,
      held: heldLabels,
    };
    const action = policy.decide(observation);
    if (action === 'commit') heldLabels.push(label);
    decisions.push({ t: index + 1, classId, occurrence, action, resolved: true });
    state = advance(state, classId, action);
  }
  return { classes: classList, rules, decisions };
}

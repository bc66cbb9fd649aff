import type { Policy } from '../policies/policy.js';
import type { DecisionRecord, SessionRecord } from './session-record.js';
import type { SessionSetting } from './session-state.js';
import { SessionWalk } from './session-walk.js';

/** Plays a policy through a class sequence in process, following the session rules. */
export function runSession(classes: ArrayLike<number>, setting: SessionSetting, policy: Policy): SessionRecord {
  const walk = new SessionWalk(setting, classes.length);
  const decisions: DecisionRecord[] = [];
  // Copied in the loop: Array.from on a typed array costs more than the whole session.
  const classList = new Array<number>(classes.length);
  for (let index = 0; index < classes.length; index++) {
    const classId = classes[index] as number;
    classList[index] = classId;
    const arrival = walk.arrive(classId);
    if (arrival.kind !== 'decide') continue;
    const action = policy.decide(walk.observation());
    decisions.push({ t: arrival.t, classId, occurrence: arrival.occurrence, action, resolved: true });
    walk.decide(action);
  }
  return { classes: classList, rules: { budget: setting.budget, charge: setting.charge }, decisions };
}

import type { DecisionRecord, SessionRecord } from '../session/session-record.js';
import { advance, startSession, turnKind } from '../session/session-state.js';

/**
 * R3's commitments as the paper counts them (HARNESS.md, R3): a commitment is
 * the first authoring event on a hidden class (rewrites and second scripts for
 * a class are not new commitments), and the hazard replays those builds
 * through the whole stream under the session rules, so the first occurrences
 * a session never showed (it stopped at its last write, or a cap) still count
 * as eligible passes. The result scores with core's sessionMetrics like any
 * decision rung.
 *
 * `authoredAt` holds the 1-based turns with an authoring event, on any class.
 */
export function buildReplay(classes: readonly number[], budget: number, authoredAt: Iterable<number>): SessionRecord {
  const firstBuild = new Map<number, number>(); // class → turn of its first authoring event
  for (const t of [...authoredAt].sort((a, b) => a - b)) {
    const classId = classes[t - 1];
    if (classId === undefined) throw new Error(`R3 build at turn ${t} is outside the ${classes.length}-item stream`);
    if (!firstBuild.has(classId)) firstBuild.set(classId, t);
  }
  let state = startSession({ budget, charge: 0 });
  const seen = new Map<number, number>();
  const decisions: DecisionRecord[] = [];
  classes.forEach((classId, index) => {
    const t = index + 1;
    const occurrence = (seen.get(classId) ?? 0) + 1;
    seen.set(classId, occurrence);
    const kind = turnKind(state, classId);
    const builds = firstBuild.get(classId) === t;
    if (kind !== 'decide') {
      if (builds)
        throw new Error(
          `R3 build on turn ${t}: class ${classId} cannot be committed there (${kind === 'closed' ? 'more classes built than the budget' : 'already held'})`,
        );
      state = advance(state, classId);
      return;
    }
    const action = builds ? 'commit' : 'pass';
    decisions.push({ t, classId, occurrence, action, resolved: true });
    state = advance(state, classId, action);
  });
  return { classes, rules: { budget, charge: 0 }, decisions };
}

import { ClassHistory } from '../session/class-history.js';
import type { Observation } from '../session/observation.js';
import type { LoopState } from './agent-loop.js';

/**
 * What an agent may know at an R3 call, as the ladder's observation: the
 * problem, the writes left, the class labels by first appearance and the
 * labels that have a script. Reference-policy agents decide from it.
 */
export function loopObservation(
  classes: readonly number[],
  state: LoopState,
  setting: { budget: number; charge: number; classCount: number | null },
): Observation {
  const history = new ClassHistory();
  const labels = new Map<number, number>();
  let current = { label: 0, occurrence: 1 };
  for (const classId of classes.slice(0, state.t)) {
    current = history.record(classId);
    labels.set(classId, current.label);
  }
  return {
    turn: state.t,
    horizon: classes.length,
    budget: setting.budget,
    remaining: setting.budget - state.writes,
    charge: setting.charge,
    classCount: setting.classCount,
    label: current.label,
    occurrence: current.occurrence,
    counts: [...history.counts],
    firstTurns: [...history.firstTurns],
    held: [...new Set(state.scripts.flatMap(([, classId]) => (labels.has(classId) ? [labels.get(classId) as number] : [])))],
  };
}

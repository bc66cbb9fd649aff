import { ClassHistory } from '../session/class-history.js';
import type { Observation } from '../session/observation.js';
import type { SessionSetting } from '../session/run-session.js';
import { emptyLedger, recordAction, writesLeft, type ScriptActionKind, type ScriptLedger } from './script-ledger.js';

/** A written script as the agent knows it: by id, with the label of the class it was written on. */
export interface KnownScript {
  readonly id: string;
  readonly label: number;
  readonly t: number;
}

/** The next R3 turn, with what the agent is shown there. */
export interface ScriptPoint {
  readonly t: number;
  readonly classId: number;
  /** `remaining` counts writes left; `held` lists the labels that have a script. */
  readonly observation: Observation;
  readonly scripts: readonly KnownScript[];
  readonly ledger: ScriptLedger;
}

/**
 * Replays the actions of the turns played so far (one per item, in order) and
 * returns the next turn, or null at the end of the stream.
 */
export function nextScriptPoint(
  classes: ArrayLike<number>,
  setting: SessionSetting,
  played: readonly ScriptActionKind[],
): ScriptPoint | null {
  if (played.length > classes.length) throw new Error(`${played.length} R3 turns recorded for a stream of ${classes.length}`);
  if (played.length === classes.length) return null;
  const history = new ClassHistory();
  let ledger = emptyLedger(setting.budget);
  const labels: number[] = [];
  played.forEach((kind, index) => {
    const classId = classes[index] as number;
    labels[classId] = history.record(classId).label;
    ledger = recordAction(ledger, classId, index + 1, kind);
  });
  const t = played.length + 1;
  const classId = classes[t - 1] as number;
  const { label, occurrence } = history.record(classId);
  labels[classId] = label;
  const scripts = ledger.scripts.map((script) => ({ id: script.id, label: labels[script.classId] as number, t: script.t }));
  return {
    t,
    classId,
    observation: {
      turn: t,
      horizon: classes.length,
      budget: setting.budget,
      remaining: writesLeft(ledger),
      charge: setting.charge,
      classCount: setting.classCount,
      label,
      occurrence,
      counts: [...history.counts],
      held: [...new Set(scripts.map((script) => script.label))],
    },
    scripts,
    ledger,
  };
}

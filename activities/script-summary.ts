import { scriptSessionMetrics } from '../core/scripts/script-metrics.js';
import type { ScriptTurn } from '../core/scripts/script-turn.js';
import type { SessionRules } from '../core/session/session-state.js';
import type { Transcript } from './run-store/transcript.js';

/** An R3 transcript's turns as metrics need them: each with whether its item was credited. */
export function scriptTurnsOf(transcript: Transcript): ScriptTurn[] {
  return transcript.scriptTurns.map((turn) => {
    const { action } = turn;
    const execution = transcript.executions.get(turn.t);
    return {
      t: turn.t,
      classId: turn.classId,
      occurrence: turn.occurrence,
      action: action.kind,
      ...('scriptId' in action && { scriptId: action.scriptId }),
      ...(action.kind === 'unresolved' && { failure: action.failure }),
      credited: action.kind === 'answer' ? turn.answerCorrect === true : (execution?.correct ?? false),
      ...(execution && { scriptReturned: execution.outcome.ok }),
    };
  });
}

/** Scores an R3 session from its transcript. */
export function scoreScriptSession(classes: readonly number[], rules: SessionRules, transcript: Transcript) {
  const turns = scriptTurnsOf(transcript);
  return { turns, ...scriptSessionMetrics({ classes, rules, turns }) };
}

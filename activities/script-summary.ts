import { loopMetrics, type LoopRecord } from '../core/scripts/loop-metrics.js';
import { splitMetrics } from '../core/scripts/split-metrics.js';
import type { SessionSetting } from '../core/session/session-state.js';
import type { Termination } from '../core/session/termination.js';
import type { Transcript } from '../run-store/transcript.js';

/** An R3 transcript as the metrics read it: writes, runs, submissions and the counted refusals. */
export function loopRecordOf(transcript: Transcript, classes: readonly number[], budget: number): LoopRecord {
  const { steps } = transcript;
  const outcomes = steps.flatMap((step) => step.outcomes.map((outcome) => ({ step, outcome })));
  const runs = [...transcript.executions.values()].sort((a, b) => a.call - b.call || a.index - b.index);
  const ranOn = new Set(runs.map((run) => run.t));
  return {
    classes,
    budget,
    shown: Math.max(0, ...steps.map((step) => step.t)),
    calls: steps.length,
    writes: outcomes.flatMap(({ step, outcome }) => (outcome.kind === 'written' ? [{ t: step.t, name: outcome.name }] : [])),
    runs: runs.map((run) => ({ t: run.t, name: run.name, returned: run.outcome.ok, correct: run.correct })),
    submissions: steps.flatMap((step) =>
      step.submitted ? [{ t: step.t, correct: step.submitted.correct, byHand: !ranOn.has(step.t) }] : [],
    ),
    writesRefused: outcomes.filter(({ outcome }) => outcome.kind === 'write-refused').length,
    crossClassRunsRefused: outcomes.filter(({ outcome }) => outcome.kind === 'run-refused').length,
    runAttempts: outcomes.filter(({ outcome }) => outcome.kind === 'run' || outcome.kind === 'run-refused').length,
    malformedCalls: outcomes.filter(({ outcome }) => outcome.kind === 'invalid').length,
    unknownCalls: outcomes.filter(({ outcome }) => outcome.kind === 'unknown-tool').length,
    forcedAdvances: steps.filter((step) => step.advanced === 'forced').length,
  };
}

/** Scores an R3 session from its transcript, with the same function as an imported arm. */
export const scoreLoopSession = (transcript: Transcript, classes: readonly number[], budget: number) =>
  loopMetrics(loopRecordOf(transcript, classes, budget));

/**
 * Scores a split agent's session: its planner's claims (the decision turns on
 * record) and its builder's work (the loop's steps and script runs). Problems
 * shown are those the session went through, handed to the builder or given
 * up: the whole stream when it played to the end.
 */
export function scoreSplitSession(transcript: Transcript, classes: readonly number[], setting: SessionSetting, termination: Termination) {
  const builder = loopRecordOf(transcript, classes, setting.budget);
  const shown = termination === 'stream-end' ? classes.length : Math.max(builder.shown, ...transcript.turns.map((turn) => turn.t));
  return splitMetrics(
    { ...builder, shown },
    transcript.turns.map((turn) => turn.decision),
    setting.classCount,
  );
}

import type { SessionMetrics } from '../core/metrics/session-metrics.js';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import { loopMetrics, type LoopRecord, type ScriptMetrics } from '../core/scripts/loop-metrics.js';
import { splitMetrics } from '../core/scripts/split-metrics.js';
import { withTruncatedTail } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Termination } from '../core/session/termination.js';
import { protocolRules } from '../core/session/turn-protocol.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { accountingOf, buildSessionSummary, type SessionSummary } from '../run-store/session-summary.js';
import type { AttemptRecord, Transcript } from '../run-store/transcript.js';

/** An R3 transcript as the metrics read it: writes, runs, submissions and the counted refusals. */
function loopRecordOf(transcript: Transcript, classes: readonly number[], budget: number): LoopRecord {
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

/** What a session scores: every decision turn of its stream (R3: the builds replayed through it), its metrics, and R3's own. */
export interface SessionScore {
  readonly decisions: readonly DecisionRecord[];
  readonly metrics: SessionMetrics;
  readonly script?: ScriptMetrics;
}

/**
 * Scores a session from its transcript: at R0–R2 and the probe from the
 * decisions its turns record (turns it never reached count as truncated); at
 * R3 from its model calls and script runs, with the same function as an
 * imported arm; a split agent's from its planner's claims and its builder's
 * work. The one scoring of a session: when it finishes (how it ended given),
 * and when `allocbench rescore` reads its replies again.
 */
export function scoreTranscript(
  spec: SessionSpec,
  classes: readonly number[],
  transcript: Transcript,
  termination: Termination,
): SessionScore {
  if (spec.agent?.kind === 'split') return scoreSplitSession(transcript, classes, spec, termination);
  if (spec.rung === 'R3') return loopMetrics(loopRecordOf(transcript, classes, spec.budget));
  const decisions = withTruncatedTail(
    classes,
    protocolRules(spec, classes),
    transcript.turns.map((turn) => turn.decision),
  );
  return { decisions, metrics: sessionMetrics({ classes, rules: { budget: spec.budget, charge: spec.charge }, decisions }) };
}

/**
 * A split agent's session: its planner's claims (the decision turns on
 * record) and its builder's work (the loop's steps and script runs). Problems
 * shown are those the session went through, handed to the builder or given
 * up: the whole stream when it played to the end.
 */
function scoreSplitSession(transcript: Transcript, classes: readonly number[], spec: SessionSpec, termination: Termination): SessionScore {
  const builder = loopRecordOf(transcript, classes, spec.budget);
  const shown = termination === 'stream-end' ? classes.length : Math.max(builder.shown, ...transcript.turns.map((turn) => turn.t));
  return splitMetrics(
    { ...builder, shown },
    transcript.turns.map((turn) => turn.decision),
    protocolRules(spec, classes).classCount,
  );
}

/**
 * The summary of a session's run that ended as `termination`, scored from its
 * transcript: the one way one is built from a transcript (a session that
 * finishes or stops, a cancel, and `allocbench rescore` rebuilding an unreadable one).
 */
export function summaryFromTranscript(parts: {
  readonly spec: SessionSpec;
  readonly streamHash: string;
  readonly classes: readonly number[];
  readonly transcript: Transcript;
  readonly termination: Termination;
  readonly finishedAt: string;
}): SessionSummary {
  const { spec, classes, transcript, termination } = parts;
  const { decisions, metrics, script } = scoreTranscript(spec, classes, transcript, termination);
  const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
  return buildSessionSummary({
    spec,
    streamHash: parts.streamHash,
    termination,
    decisions,
    metrics,
    script,
    accounting: accountingOf(attempts, transcript.costUsd),
    finishedAt: parts.finishedAt,
  });
}

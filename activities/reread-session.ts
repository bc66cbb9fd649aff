import { isDeepStrictEqual } from 'node:util';
import type { ModelReply } from '../core/chat/messages.js';
import { isRecoveredCall, recoverToolCalls } from '../core/chat/recover-tool-calls.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import { cutOff, decisionRecord } from '../core/rungs/reply-outcome.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { matchesGold } from '../core/scripts/answer-match.js';
import type { LoopOutcome } from '../core/scripts/agent-loop.js';
import { headOf, readLoopCalls } from '../core/scripts/read-loop-calls.js';
import { nextDecisionPoint } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { Termination } from '../core/session/termination.js';
import { afterLoopReply, nextMove, startProgress, type Progress, type ProtocolRules } from '../core/session/turn-protocol.js';
import type { Stream } from '../core/stream/stream.js';
import { framingOf, isLocalModel, maxOutputTokens, type SessionSpec } from '../core/sweep/session-spec.js';
import type { AttemptRecord, ExecutionRecord, LoopStepRecord, Transcript, TranscriptRecord, TurnRecord } from '../run-store/transcript.js';

/*
 * A finished session's recorded replies read again with the current reading
 * (`allocbench rescore`): at R0–R2 and the probe each turn's standing reply is
 * parsed into its decision again; at R3 each model call's tool calls are read
 * again and the loop's rules applied, and every submitted answer and script
 * output checked against the gold again (the script runs themselves are
 * recorded outcomes and are not run again). The session as played must still
 * follow: a reading that changes what a turn did (a pass read as a commit, a
 * call read as another) changes which turns come after it, which the recorded
 * session cannot say, so the session has diverged and keeps its summary.
 */

export type Reread =
  /**
   * The transcript as the current reading sees it; at R3 also one line per call whose answer or script output
   * is now checked otherwise than recorded (a decision turn's change shows in its decision).
   */
  | { readonly kind: 'reread'; readonly transcript: Transcript; readonly changes: readonly string[] }
  | { readonly kind: 'diverged'; readonly why: string };

/** Decisions not read from a reply: a call that failed its retries (imported), or a turn never reached. */
const NOT_FROM_A_REPLY = new Set(['transport-error', 'truncated']);

/** How a decision reads in a change line: `commit (tag)`, `pass, unresolved (no-decision)`. */
export function describeDecision(decision: DecisionRecord): string {
  const why = [decision.how, decision.failure].filter(Boolean).join(', ');
  return `${decision.action}${decision.resolved ? '' : ', unresolved'}${why ? ` (${why})` : ''}`;
}

/** The attempt whose reply each turn stands on: the last that returned one before the turn was recorded. */
function standingAttempts(records: readonly TranscriptRecord[]): Map<number, AttemptRecord> {
  const latest = new Map<number, AttemptRecord>();
  const standing = new Map<number, AttemptRecord>();
  for (const record of records) {
    if (record.type === 'attempt' && record.outcome === 'ok') latest.set(record.t, record);
    if (record.type === 'turn' && !standing.has(record.t)) {
      const attempt = latest.get(record.t);
      if (attempt) standing.set(record.t, attempt);
    }
  }
  return standing;
}

/** A local model's reply as the provider would give it now: calls it recovered from the text (or found none of) recovered again. */
function withCallsRecovered(spec: SessionSpec, reply: ModelReply): ModelReply {
  if (spec.rung === 'R0' || !isLocalModel(spec.model) || !reply.toolCalls.every(isRecoveredCall)) return reply;
  const names = toolSpecs(framingOf(spec)).map((tool) => tool.name);
  return { ...reply, toolCalls: recoverToolCalls(reply.text, names) };
}

function rereadTurns(spec: SessionSpec, rules: ProtocolRules, transcript: Transcript, termination: Termination): Reread {
  if (spec.rung === 'R3') throw new Error('rereadTurns: an R3 session');
  const rung = spec.rung;
  const standing = standingAttempts(transcript.records);
  const turns = transcript.turns.map((turn): TurnRecord => {
    if (turn.decision.failure && NOT_FROM_A_REPLY.has(turn.decision.failure)) return turn;
    const reply = withCallsRecovered(spec, turn.reply);
    const parsed = cutOff(
      parseReply(rung, reply, { strict: spec.strictParse }),
      { stopReason: standing.get(turn.t)?.stopReason ?? null },
      maxOutputTokens(spec),
    );
    const { t, classId, occurrence } = turn.decision;
    const decision = decisionRecord({ t, classId, occurrence }, parsed);
    return isDeepStrictEqual(decision, turn.decision) ? turn : { ...turn, reply, decision };
  });
  // The recorded turns must still be the session's decision turns under the decisions as read now.
  const decided: DecisionRecord[] = [];
  const changedAction = turns.find((turn, i) => turn.decision.action !== transcript.turns[i]?.decision.action);
  const diverged = (): Reread => ({
    kind: 'diverged',
    why: changedAction
      ? `turn ${changedAction.t} now reads ${changedAction.decision.action} where the session played ${changedAction.decision.action === 'commit' ? 'pass' : 'commit'}, so the turns after it were asked in a state this reading would not have reached (run the session again to score it)`
      : 'its recorded turns do not follow the session rules on its stream',
  });
  for (const turn of turns) {
    if (nextDecisionPoint(rules.classes, rules, decided)?.t !== turn.t) return diverged();
    decided.push(turn.decision);
  }
  if (termination === 'stream-end' && nextDecisionPoint(rules.classes, rules, decided)) return diverged();
  return { kind: 'reread', transcript: { ...transcript, turns }, changes: [] };
}

const describeOutcomes = (outcomes: readonly LoopOutcome[]) => outcomes.map((outcome) => outcome.kind).join(', ') || 'no tool call';

function rereadSteps(rules: ProtocolRules, stream: Stream, transcript: Transcript): Reread {
  const gold = (t: number) => stream.items[t - 1]?.answer ?? '';
  const changes: string[] = [];
  let progress: Progress = startProgress({ rung: 'R3' });
  const steps = transcript.steps.map((step): LoopStepRecord | string => {
    const move = nextMove(progress, rules);
    if (move.kind !== 'loop-call' || move.call !== step.call) return `call ${step.call} does not follow the loop's rules on its stream`;
    const calls = readLoopCalls(step.reply);
    const next = afterLoopReply(progress, move, calls.map(headOf));
    progress = next.progress;
    if (!isDeepStrictEqual(next.outcomes, step.outcomes) || next.advanced !== step.advanced)
      return `call ${step.call} (problem ${step.t}) now reads as ${describeOutcomes(next.outcomes)} where the session played ${describeOutcomes(step.outcomes)}, so the calls after it were made in a state this reading would not have reached (run the session again to score it)`;
    const submission = calls.find((_, index) => next.outcomes[index]?.kind === 'submitted');
    if (submission?.tool !== 'submit_answer') return step;
    const submitted = { value: submission.value, correct: matchesGold(submission.value, gold(step.t)) };
    if (isDeepStrictEqual(submitted, step.submitted)) return step;
    const was = step.submitted ? `${step.submitted.value} (${step.submitted.correct ? 'correct' : 'wrong'})` : 'nothing';
    changes.push(`call ${step.call} submitted ${was} → ${submitted.value} (${submitted.correct ? 'correct' : 'wrong'})`);
    return { ...step, submitted };
  });
  const divergence = steps.find((step): step is string => typeof step === 'string');
  if (divergence) return { kind: 'diverged', why: divergence };
  const executions = new Map<string, ExecutionRecord>();
  for (const [key, run] of transcript.executions) {
    const correct = run.outcome.ok && matchesGold(run.outcome.value, gold(run.t));
    if (correct !== run.correct) changes.push(`call ${run.call} script ${run.name} output now ${correct ? 'correct' : 'wrong'}`);
    executions.set(key, correct === run.correct ? run : { ...run, correct });
  }
  return { kind: 'reread', transcript: { ...transcript, steps: steps as LoopStepRecord[], executions }, changes };
}

/** A session's transcript read again: its turns (R3: its calls and what they submitted and ran) as the current reading sees them. */
export function rereadSession(
  spec: SessionSpec,
  rules: ProtocolRules,
  stream: Stream,
  transcript: Transcript,
  termination: Termination,
): Reread {
  return spec.rung === 'R3' ? rereadSteps(rules, stream, transcript) : rereadTurns(spec, rules, transcript, termination);
}

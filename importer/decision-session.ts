import type { ModelReply } from '../core/chat/messages.js';
import { FAMILY_NAMES } from '../core/families/family.js';
import { sessionMetrics, type SessionMetrics } from '../core/metrics/session-metrics.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import type { DecisionRung } from '../core/rungs/rung.js';
import { withTruncatedTail } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import { InputError } from '../core/errors.js';
import type { Usage } from '../core/chat/usage.js';
import {
  toolCallsOf,
  usageOf,
  usageTotals,
  type ImportedRecord,
  type ImportedSession,
  type ReparseDisagreement,
  type SummaryDifference,
  type UnknownReading,
} from './imported-session.js';
import type { PaperDecisionSession, PaperMessage } from './paper-files.js';
import { storedReading } from './stored-reading.js';

export interface DecisionSessionContext {
  readonly rung: DecisionRung;
  /** The session file, for error messages. */
  readonly path: string;
  readonly charge: number;
  /** Whether the provider's input_tokens leaves cached tokens out (Anthropic). */
  readonly anthropic: boolean;
  /** Calls a turn may take in all (empty-fence retries: the first call plus re-asks); 1 without them. */
  readonly callsPerTurn: number;
}

const COMMITS = new Set(['KEEP', 'CLAIM_SOLVER']);

/** A stored turn's reply as the model gave it: the final attempt's text and, from the message history, its tool calls and their results. */
interface StoredExchange {
  readonly reply: ModelReply | null;
  readonly toolResults: { toolCallId: string; content: string }[];
  /** Format reminders sent before the kept reply: the turn was asked again. */
  readonly reminders: number;
}

/**
 * Finds each turn's prompt in the message history and takes the assistant
 * message that answered it (retried attempts are dropped from the history;
 * the reminders that asked again stay), with the tool results that followed.
 * A turn whose reply is missing finds none, without taking the next turn's.
 */
function exchanges(session: PaperDecisionSession): StoredExchange[] {
  const messages = session.messages ?? [];
  let cursor = 0;
  return session.transcript.map((turn, i) => {
    const start = messages.findIndex((m, j) => j >= cursor && m.role === 'user' && m.content === turn.prompt);
    if (start === -1) return { reply: null, toolResults: [], reminders: 0 };
    const nextPrompt = session.transcript[i + 1]?.prompt;
    let index = start + 1;
    let reminders = 0;
    while (messages[index]?.role === 'user' && messages[index]?.content !== nextPrompt) {
      reminders++;
      index++;
    }
    const answer = messages[index];
    if (answer?.role !== 'assistant') {
      cursor = index;
      return { reply: null, toolResults: [], reminders };
    }
    const toolResults: { toolCallId: string; content: string }[] = [];
    for (index++; messages[index]?.role === 'tool'; index++) {
      const result = messages[index] as PaperMessage;
      toolResults.push({ toolCallId: result.tool_call_id ?? '', content: result.content ?? '' });
    }
    cursor = index;
    return { reply: { text: turn.reply ?? answer.content ?? '', toolCalls: toolCallsOf(answer) }, toolResults, reminders };
  });
}

/** A re-ask repeats the turn's conversation plus a short reminder: its input grows by tens of tokens, not by a reply and a problem. */
const RE_ASK_GROWTH = 80;

/**
 * Provider calls per turn. The usage list has one entry per call and no turn
 * index. A turn without a reminder in the history took one call; an
 * unresolved turn after retries took all `cap`; a turn asked again and then
 * answered took from 2 to `cap`, split where the input stops growing by a
 * reminder's few tokens. `exact` is false when that split cannot account for
 * every call (the remaining calls then go to the retried turns in order).
 */
export function callsPerTurn(
  turns: readonly { readonly unresolved: boolean; readonly reminded: boolean }[],
  inputs: readonly number[],
  cap: number,
): { calls: number[]; exact: boolean } {
  const calls: number[] = [];
  let next = 0;
  for (const turn of turns) {
    let n = 1;
    if (turn.reminded && turn.unresolved) n = cap;
    else if (turn.reminded) {
      // Asked at least twice; further calls while the input grows by no more than a reminder.
      const first = inputs[next] ?? 0;
      n = Math.min(2, cap);
      for (
        let growth = (inputs[next + n] ?? -1) - first;
        n < cap && growth >= 0 && growth < RE_ASK_GROWTH;
        growth = (inputs[next + n] ?? -1) - first
      )
        n++;
    }
    calls.push(n);
    next += n;
  }
  if (next === inputs.length) return { calls, exact: true };
  // Fall back on the counts alone: unresolved turns take `cap`, the other retried turns share what remains.
  const fallback = turns.map((turn) => (!turn.reminded ? 1 : turn.unresolved ? cap : 2));
  let extra = inputs.length - fallback.reduce((sum, n) => sum + n, 0);
  turns.forEach((turn, i) => {
    if (!turn.reminded || turn.unresolved || extra <= 0) return;
    const add = Math.min(extra, cap - (fallback[i] as number));
    fallback[i] = (fallback[i] as number) + add;
    extra -= add;
  });
  return { calls: fallback, exact: false };
}

const storedLabel = (decision: DecisionRecord) => (decision.resolved ? decision.action : 'unresolved');

/** Reads one seed of an R0/probe/R1/R2 arm (the paper's session.json) into our records, scored by our core. */
export function importDecisionSession(session: PaperDecisionSession, stream: Stream, context: DecisionSessionContext): ImportedSession {
  const { path, rung } = context;
  const classes = classSequence(stream);
  const seen = new Map<number, number>();
  const occurrenceAt = classes.map((classId) => {
    const occurrence = (seen.get(classId) ?? 0) + 1;
    seen.set(classId, occurrence);
    return occurrence;
  });
  const unknownReadings: UnknownReading[] = [];
  const decisions: DecisionRecord[] = session.transcript.map((turn, index) => {
    const t = turn.slot + 1;
    if (classes[turn.slot] !== turn.class_id || occurrenceAt[turn.slot] !== turn.class_position) {
      throw new InputError(
        `${path}: transcript.${index}: slot ${turn.slot} holds class ${turn.class_id} (occurrence ${turn.class_position}) but the stream has ${FAMILY_NAMES[classes[turn.slot] ?? -1] ?? 'nothing'} there (expected the seed's own stream)`,
      );
    }
    const reading = storedReading(turn.how, COMMITS.has(turn.decision) ? 'commit' : 'pass');
    if (reading.unknown) unknownReadings.push({ seed: session.seed, turn: t, how: turn.how });
    return {
      t,
      classId: turn.class_id,
      occurrence: turn.class_position,
      action: reading.action,
      resolved: reading.resolved,
      ...(reading.how && { how: reading.how }),
      ...(reading.failure && { failure: reading.failure }),
    };
  });
  const rules = { budget: session.budget, charge: context.charge };
  let complete: DecisionRecord[];
  let metrics: SessionMetrics;
  try {
    complete = withTruncatedTail(classes, { ...rules, classCount: FAMILY_NAMES.length }, decisions);
    metrics = sessionMetrics({ classes, rules, decisions: complete });
  } catch (error) {
    throw new InputError(`${path}: the stored decisions do not fit the session rules on this stream (${(error as Error).message})`);
  }

  const found = exchanges(session);
  const { calls } = callsPerTurn(
    session.transcript.map((turn, i) => ({ unresolved: turn.how === 'default', reminded: (found[i]?.reminders ?? 0) > 0 })),
    session.turn_usages.map((usage) => usage.input_tokens ?? 0),
    context.callsPerTurn,
  );
  const usages = session.turn_usages.map((usage) => usageOf(usage, context.anthropic));
  const records: ImportedRecord[] = [];
  const disagreements: ReparseDisagreement[] = [];
  let reread = 0;
  let next = 0;
  session.transcript.forEach((turn, i) => {
    const decision = decisions[i] as DecisionRecord;
    const exchange = found[i] as StoredExchange;
    const responseModel = turn.response_model ?? session.resolved_model ?? '';
    const n = calls[i] as number;
    let last: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    for (let attempt = 1; attempt <= n && next < usages.length; attempt++) {
      last = usages[next++] as Usage;
      records.push({
        type: 'attempt',
        t: decision.t,
        attempt,
        outcome: attempt < n ? 'empty-reply' : decision.failure === 'transport-error' ? 'transport-error' : 'ok',
        usage: last,
        ...(responseModel && { responseModel }),
      });
    }
    const reply = rung === 'R0' ? { text: turn.reply ?? exchange.reply?.text ?? '', toolCalls: [] } : exchange.reply;
    records.push({
      type: 'turn',
      t: decision.t,
      user: turn.prompt ?? '',
      reply: reply ?? { text: turn.reply ?? '', toolCalls: [] },
      toolResults: exchange.toolResults,
      decision,
      detail: `read by the authors' harness as '${turn.how}'`,
      usage: last,
      responseModel,
    });
    if (reply === null) return;
    reread++;
    const ours = parseReply(rung, reply);
    const oursLabel = ours.resolved ? ours.action : 'unresolved';
    if (oursLabel !== storedLabel(decision))
      disagreements.push({ seed: session.seed, turn: decision.t, stored: storedLabel(decision), ours: oursLabel });
  });
  // Calls left over (none when the counts reconcile) stay on record with the last turn.
  for (; next < usages.length; next++) {
    records.push({ type: 'attempt', t: decisions.at(-1)?.t ?? 1, attempt: 0, outcome: 'ok', usage: usages[next] as Usage });
  }

  const committed = session.kept ?? session.claimed ?? {};
  const storedFirstSight = Object.values(committed).filter((position) => position === 1).length;
  const differences: SummaryDifference[] = [
    { field: 'collected', stored: session.collected, ours: metrics.utility },
    { field: 'commitments', stored: Object.keys(committed).length, ours: metrics.commitments },
    { field: 'first-sight commitments', stored: storedFirstSight, ours: metrics.firstSightCommitments },
    { field: 'unparsed', stored: session.unparsed, ours: metrics.unresolved },
    ...(session.net_score === undefined ? [] : [{ field: 'net_score', stored: session.net_score, ours: metrics.net }]),
  ]
    .filter((d) => d.stored !== d.ours)
    .map((d) => ({ seed: session.seed, ...d }));

  return {
    seed: session.seed,
    stream,
    modelKey: session.model_key,
    termination: 'stream-end',
    decisions: complete,
    metrics,
    transcript: records,
    usage: usageTotals(usages),
    costUsd: session.actual_cost_usd ?? 0,
    calls: usages.length,
    decisionTurnsStored: session.transcript.length,
    responseModels: [...new Set(session.transcript.flatMap((turn) => (turn.response_model ? [turn.response_model] : [])))],
    differences,
    reparse: { turns: reread, agree: reread - disagreements.length, disagreements },
    unknownReadings,
  };
}

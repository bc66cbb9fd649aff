import type { ModelReply } from '../core/chat/messages.js';
import { FAMILY_NAMES } from '../core/families/family.js';
import { sessionMetrics, type SessionMetrics } from '../core/metrics/session-metrics.js';
import { parseReply } from '../core/rungs/parse-reply.js';
import type { DecisionRung } from '../core/rungs/rung.js';
import { withTruncatedTail } from '../core/session/replay.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import { InputError } from '../core/errors.js';
import type { Usage } from '../activities/providers/provider.js';
import {
  toolCallsOf,
  usageOf,
  usageTotals,
  type ImportedRecord,
  type ImportedSession,
  type ReparseDisagreement,
  type SummaryDifference,
} from './imported-session.js';
import type { PaperDecisionSession, PaperMessage } from './paper-files.js';

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
 */
function exchanges(session: PaperDecisionSession): StoredExchange[] {
  const messages = session.messages ?? [];
  let cursor = 0;
  return session.transcript.map((turn) => {
    const start = messages.findIndex((m, i) => i >= cursor && m.role === 'user' && m.content === turn.prompt);
    if (start === -1) return { reply: null, toolResults: [], reminders: 0 };
    let index = start + 1;
    let reminders = 0;
    while (messages[index]?.role === 'user') {
      reminders++;
      index++;
    }
    const answer = messages[index];
    if (answer?.role !== 'assistant') return { reply: null, toolResults: [], reminders };
    const toolResults: { toolCallId: string; content: string }[] = [];
    for (index++; messages[index]?.role === 'tool'; index++) {
      const result = messages[index] as PaperMessage;
      toolResults.push({ toolCallId: result.tool_call_id ?? '', content: result.content ?? '' });
    }
    cursor = index;
    return { reply: { text: turn.reply ?? answer.content ?? '', toolCalls: toolCallsOf(answer) }, toolResults, reminders };
  });
}

/**
 * Provider calls per turn. The usage list has one entry per call with no turn
 * index: a turn asked again (a reminder in the history) took more than one. An
 * unresolved turn after retries took them all; the remaining calls go to the
 * other retried turns in order. Exact whenever the counts allow only one split.
 */
function callsPerTurn(session: PaperDecisionSession, found: readonly StoredExchange[], cap: number): number[] {
  const calls = found.map((exchange, i) => {
    if (exchange.reminders === 0) return 1;
    return session.transcript[i]?.how === 'default' ? cap : 2;
  });
  let extra = session.turn_usages.length - calls.reduce((sum, n) => sum + n, 0);
  for (let i = 0; i < calls.length && extra > 0; i++) {
    if ((found[i]?.reminders ?? 0) === 0 || session.transcript[i]?.how === 'default') continue;
    const add = Math.min(extra, cap - (calls[i] as number));
    calls[i] = (calls[i] as number) + add;
    extra -= add;
  }
  return calls;
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
  const decisions: DecisionRecord[] = session.transcript.map((turn, index) => {
    const t = turn.slot + 1;
    if (classes[turn.slot] !== turn.class_id || occurrenceAt[turn.slot] !== turn.class_position) {
      throw new InputError(
        `${path}: transcript.${index}: slot ${turn.slot} holds class ${turn.class_id} (occurrence ${turn.class_position}) but the stream has ${FAMILY_NAMES[classes[turn.slot] ?? -1] ?? 'nothing'} there (expected the seed's own stream)`,
      );
    }
    const resolved = turn.how !== 'default';
    return {
      t,
      classId: turn.class_id,
      occurrence: turn.class_position,
      action: resolved && COMMITS.has(turn.decision) ? 'commit' : 'pass',
      resolved,
      ...(!resolved && { failure: 'no-decision' as const }),
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
  const calls = callsPerTurn(session, found, context.callsPerTurn);
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
        outcome: attempt < n ? 'empty-reply' : 'ok',
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
  };
}

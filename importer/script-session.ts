import { loopMetrics } from '../core/scripts/loop-metrics.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import { InputError } from '../core/errors.js';
import type { Usage } from '../core/chat/usage.js';
import type { Termination } from '../core/session/termination.js';
import {
  messageRecord,
  usageOf,
  usageTotals,
  type ImportedRecord,
  type ImportedSession,
  type SummaryDifference,
} from './imported-session.js';
import type { PaperScriptSession } from './paper-files.js';

export interface ScriptSessionContext {
  readonly path: string;
  readonly seed: number;
  readonly anthropic: boolean;
}

/** Whether a stored value (a submitted answer or a script's return) is exactly the gold integer. */
function isGold(value: number | bigint | string | null | undefined, gold: string): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'bigint') return value.toString() === gold;
  const number = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isInteger(number)) return false;
  // A double beyond 2^53 stands for every integer that rounds to it: compare in doubles.
  return Number.isSafeInteger(number) ? BigInt(number).toString() === gold : number === Number(gold);
}

const PROBLEM_HEADER = /PROBLEM\s+(\d+)\s+of\s+\d+/i;

/** The harness stopped a session once fewer tokens than this were left, without setting hit_cap. */
const TOKEN_CAP_MARGIN = 256;

/**
 * How the authors' R3 session ended: the write budget (stopped_on_budget),
 * the token cap (hit_cap, or too few tokens left for another call), their
 * safety stops (stop_reason: a missing usage report, the per-seed cost cap),
 * else the end of the stream (or their turn cap of 900 calls, which no stored
 * session reached).
 */
function terminationOf(session: PaperScriptSession): Termination {
  if (session.stopped_on_budget) return 'budget-exhausted';
  const cap = session.token_cap ?? null;
  if (session.hit_cap || (cap !== null && session.spent_tokens !== undefined && cap - session.spent_tokens < TOKEN_CAP_MARGIN))
    return 'token-cap';
  if (session.stop_reason === 'unit_cost_cap') return 'cost-cap';
  if (session.stop_reason === 'missing_usage') return 'transport-exhausted';
  return 'stream-end';
}

/**
 * Reads one seed of an R3 arm (the paper's sessions.jsonl line) into our
 * records, scored by the same function as our own sessions (loopMetrics):
 * each answer and script return checked against the stored stream's gold.
 */
export function importScriptSession(session: PaperScriptSession, stream: Stream, context: ScriptSessionContext): ImportedSession {
  const { path } = context;
  const classes = classSequence(stream);
  const gold = (index: number) => stream.items[index]?.answer ?? '';
  for (const record of session.records) {
    if (record.item_idx >= classes.length)
      throw new InputError(`${path}: record for item ${record.item_idx} is outside the ${classes.length}-item stream`);
  }
  // Authoring events by problem; arms older than `scripts_authored` name a script where it first ran.
  const firstRun = new Set<string>();
  const writes: { t: number; name: string }[] = [];
  for (const record of session.records) {
    const names = record.scripts_authored ?? (record.scripts_run ?? []).filter((name) => !firstRun.has(name));
    for (const name of record.scripts_run ?? []) firstRun.add(name);
    for (const name of names) writes.push({ t: record.item_idx + 1, name });
  }
  let scored;
  try {
    scored = loopMetrics({
      classes,
      budget: session.budget,
      shown: Math.max(0, ...session.turn_usages.map((u) => (u.problem ?? 0) + 1)),
      calls: session.turn_usages.length,
      writes,
      runs: session.records.flatMap((record) =>
        (record.runs ?? []).map((run) => {
          const returned = run.ret !== null && run.ret !== undefined;
          return { t: record.item_idx + 1, name: run.script, returned, correct: returned && isGold(run.ret, gold(record.item_idx)) };
        }),
      ),
      submissions: session.records
        .filter((r) => r.submitted)
        .map((r) => ({ t: r.item_idx + 1, correct: isGold(r.answer, gold(r.item_idx)), byHand: !r.used_script })),
      writesRefused: session.n_refused_tool_calls ?? 0,
      crossClassRunsRefused: session.n_cross_class_run_refused ?? 0,
      // The harness kept the successful runs only, but counted every run it started (n_run_calls); refused runs apart.
      runAttempts:
        (session.n_run_calls ?? session.records.reduce((sum, r) => sum + (r.runs?.length ?? 0), 0)) +
        (session.n_cross_class_run_refused ?? 0),
      malformedCalls: session.n_malformed_tool_calls ?? 0,
      unknownCalls: session.n_unknown_tool_calls ?? 0,
      forcedAdvances: session.n_forced_advances ?? 0,
    });
  } catch (error) {
    throw new InputError(`${path}: ${(error as Error).message}`);
  }
  const { metrics, script } = scored;

  const usages = session.turn_usages.map((usage) => usageOf(usage, context.anthropic));
  const records: ImportedRecord[] = [];
  const attemptsAt = new Map<number, number>();
  session.turn_usages.forEach((usage, index) => {
    const t = (usage.problem ?? 0) + 1;
    const attempt = (attemptsAt.get(t) ?? 0) + 1;
    attemptsAt.set(t, attempt);
    const pruned = usage.tools !== undefined && usage.tools.length === 0;
    records.push({
      type: 'attempt',
      t,
      attempt,
      outcome: pruned ? 'empty-reply' : 'ok',
      usage: usages[index] as Usage,
      ...(usage.response_model && { responseModel: usage.response_model }),
    });
  });
  let problem = 1;
  for (const message of session.transcript) {
    const header = message.role === 'user' ? PROBLEM_HEADER.exec(message.content ?? '') : null;
    if (header) problem = Number(header[1]);
    records.push(messageRecord(problem, message));
  }

  const differences: SummaryDifference[] = [
    { field: 'n_correct', stored: session.n_correct, ours: script.answeredCorrectly },
    { field: 'n_scripts_written', stored: session.n_scripts_written, ours: script.builds },
  ]
    .filter((d) => d.stored !== d.ours)
    .map((d) => ({ seed: context.seed, ...d }));

  return {
    seed: context.seed,
    stream,
    modelKey: session.model_key,
    termination: terminationOf(session),
    decisions: scored.decisions,
    metrics,
    script,
    transcript: records,
    usage: usageTotals(usages),
    costUsd: session.actual_cost_usd ?? 0,
    calls: usages.length,
    decisionTurnsStored: 0,
    responseModels: [...new Set(session.turn_usages.flatMap((u) => (u.response_model ? [u.response_model] : [])))],
    differences,
    reparse: null,
    unknownReadings: [],
  };
}

import { commitAtK } from '../core/policies/commit-at-k.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { toolSpecs } from '../core/rungs/tools.js';
import type { LoopCallHead } from '../core/scripts/read-loop-calls.js';
import type { Action } from '../core/session/session-state.js';
import {
  afterDecision,
  afterLoopReply,
  nextMove,
  observationAt,
  openingMessage,
  protocolRules,
  startProgress,
} from '../core/session/turn-protocol.js';
import { streamForSpec } from '../run-store/stream-store.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import { framingOf, maxOutputTokens, type SessionSpec } from '../core/sweep/session-spec.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { costOf } from '../activities/providers/prices.js';
import { createProvider } from '../activities/providers/registry.js';
import { providerOf } from '../protocol/task-queues.js';
import type { Usage } from '../core/chat/usage.js';

/** Local models and reference policies cost nothing; hosted models cost what their price says. */
function isFree(model: string): boolean {
  return providerOf(model) === 'policy' || createProvider(model).local;
}

/** Characters per token, for an estimate made without the model's tokenizer. */
const CHARS_PER_TOKEN = 4;
/** A typical reply uses a quarter of the rung's output allowance; the worst case uses all of it. */
const TYPICAL_OUTPUT_SHARE = 0.25;

export interface SessionEstimate {
  readonly usage: Usage;
  readonly costUsd: number | null;
}

type Decide = (o: { occurrence: number; label: number; held: readonly number[] }) => Action;

/** What an R3 call adds to the conversation besides the reply when no user message opens it: a typical tool result. */
const TYPICAL_TOOL_RESULT = '{"ok":true,"returned":"123456789","tokens_remaining":250000}';

/**
 * What opens each model call of a session, for an agent that decides with
 * `decide`, walked through the core's turn protocol: the turn messages, or at
 * R3 the loop's calls under its own rules (write where the agent commits, run,
 * submit; run and submit on a class with a script; otherwise submit at once),
 * with a typical tool result where no user message opens the call.
 */
function callOpenings(spec: SessionSpec, stream: Stream, decide: Decide): string[] {
  const framing = framingOf(spec);
  const rules = protocolRules(spec, classSequence(stream));
  const openings: string[] = [];
  let progress = startProgress(spec.rung);
  let last: LoopCallHead['tool'] | null = null;
  for (let move = nextMove(progress, rules); move.kind !== 'done'; move = nextMove(progress, rules)) {
    openings.push(openingMessage(framing, move, stream.items) ?? TYPICAL_TOOL_RESULT);
    const o = observationAt(move, rules);
    if (move.kind === 'decide') {
      progress = afterDecision(progress, decide(o));
      continue;
    }
    const name = `type-${o.label}`;
    const head: LoopCallHead =
      last === 'run_script'
        ? { tool: 'submit_answer' }
        : last === 'write_script' || o.held.includes(o.label)
          ? { tool: 'run_script', name }
          : o.remaining > 0 && decide(o) === 'commit'
            ? { tool: 'write_script', name }
            : { tool: 'submit_answer' };
    const step = afterLoopReply(move, rules, [head]);
    last = step.advanced ? null : head.tool;
    progress = step.progress;
  }
  return openings;
}

/**
 * Tokens and cost of one session, by rendering its real prompts: the
 * conversation grows append-only, every request but the first can be read
 * from the prompt cache up to the previous request, and each reply is assumed
 * to have `outputShare` of the call's output limit (raised where reasoning counts against it).
 */
function estimateSession(spec: SessionSpec, stream: Stream, decide: Decide, outputShare: number): SessionEstimate {
  const replyTokens = Math.round(maxOutputTokens(spec) * outputShare);
  let conversationChars = systemPrompt(framingOf(spec)).length + JSON.stringify(toolSpecs(framingOf(spec))).length;
  let previousInput = 0;
  const total = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 };
  for (const user of callOpenings(spec, stream, decide)) {
    conversationChars += user.length;
    const input = Math.ceil(conversationChars / CHARS_PER_TOKEN);
    total.inputTokens += input;
    total.cachedInputTokens += previousInput;
    total.cacheWriteTokens += input - previousInput;
    total.outputTokens += replyTokens;
    previousInput = input;
    conversationChars += replyTokens * CHARS_PER_TOKEN;
  }
  return { usage: total, costUsd: spec.price ? costOf(total, spec.price) : isFree(spec.model) ? 0 : null };
}

export interface CellEstimate {
  readonly model: string;
  readonly rung: string;
  readonly sessions: number;
  readonly typical: SessionEstimate;
  readonly worst: SessionEstimate;
}

const add = (a: SessionEstimate, b: SessionEstimate): SessionEstimate => ({
  usage: {
    inputTokens: a.usage.inputTokens + b.usage.inputTokens,
    outputTokens: a.usage.outputTokens + b.usage.outputTokens,
    cachedInputTokens: a.usage.cachedInputTokens + b.usage.cachedInputTokens,
    cacheWriteTokens: (a.usage.cacheWriteTokens ?? 0) + (b.usage.cacheWriteTokens ?? 0),
  },
  costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
});

/**
 * A dry run's cost estimate per model and rung. Typical: a defer-then-confirm
 * agent (commit at the second occurrence) with quarter-length replies. Worst:
 * an agent that never commits, so every item is a decision, with full-length replies.
 */
export async function estimateSweep(config: SweepConfig): Promise<CellEstimate[]> {
  const cells = new Map<string, CellEstimate>();
  const typicalPolicy = commitAtK(2);
  for (const spec of expandSweep(config)) {
    const key = `${spec.model}|${spec.rung}`;
    const stream = await streamForSpec(spec);
    const typical = estimateSession(
      spec,
      stream,
      (o) => typicalPolicy.decide(o as Parameters<typeof typicalPolicy.decide>[0]),
      TYPICAL_OUTPUT_SHARE,
    );
    const worst = estimateSession(spec, stream, () => 'pass', 1);
    const cell = cells.get(key);
    cells.set(
      key,
      cell
        ? { ...cell, sessions: cell.sessions + 1, typical: add(cell.typical, typical), worst: add(cell.worst, worst) }
        : { model: spec.model, rung: spec.rung, sessions: 1, typical, worst },
    );
  }
  return [...cells.values()];
}

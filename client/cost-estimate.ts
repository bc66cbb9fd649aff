import { commitAtK } from '../core/policies/commit-at-k.js';
import type { SplitRole } from '../core/rungs/rung.js';
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
import { streamForSpec, streamSource } from '../run-store/stream-store.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import { agentModel, agentName, framingOf, maxOutputTokens, type SessionSpec } from '../core/sweep/session-spec.js';
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

/** What opens one model call, and whose conversation it extends (a split agent's role's; undefined for a single agent). */
interface Opening {
  readonly role: SplitRole | undefined;
  readonly text: string;
}

/**
 * What opens each model call of a session, for an agent that decides with
 * `decide`, walked through the core's turn protocol: the turn messages, or at
 * R3 the loop's calls under its own rules (write where the agent commits — a
 * split agent's builder wherever it has a write —, run, submit; run and
 * submit on a class with a script; otherwise submit at once), with a typical
 * tool result where no user message opens the call.
 */
function callOpenings(spec: SessionSpec, stream: Stream, decide: Decide): Opening[] {
  const rules = protocolRules(spec, classSequence(stream));
  const openings: Opening[] = [];
  let progress = startProgress(spec);
  let last: LoopCallHead['tool'] | null = null;
  for (let move = nextMove(progress, rules); move.kind !== 'done'; move = nextMove(progress, rules)) {
    openings.push({ role: move.role, text: openingMessage(framingOf(spec, move.role), move, stream.items) ?? TYPICAL_TOOL_RESULT });
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
          : o.remaining > 0 && (move.role === 'builder' || decide(o) === 'commit')
            ? { tool: 'write_script', name }
            : { tool: 'submit_answer' };
    const step = afterLoopReply(progress, move, [head]);
    last = step.advanced ? null : head.tool;
    progress = step.progress;
  }
  return openings;
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

/** One conversation's running estimate: its length so far, the previous request's input and its usage. */
interface Conversation {
  chars: number;
  previousInput: number;
  readonly usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; cacheWriteTokens: number };
}

/**
 * Tokens and cost of one session, by rendering its real prompts: each
 * conversation (a split agent has two) grows append-only, every request but
 * its first can be read from the prompt cache up to the previous request, and
 * each reply is assumed to have `outputShare` of the rung's maximum output.
 */
function estimateSession(spec: SessionSpec, stream: Stream, decide: Decide, outputShare: number): SessionEstimate {
  const conversations = new Map<SplitRole | undefined, Conversation>();
  for (const { role, text } of callOpenings(spec, stream, decide)) {
    let conversation = conversations.get(role);
    if (!conversation) {
      const framing = framingOf(spec, role);
      const chars = systemPrompt(framing).length + JSON.stringify(toolSpecs(framing)).length;
      conversation = { chars, previousInput: 0, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 } };
      conversations.set(role, conversation);
    }
    const replyTokens = Math.round(maxOutputTokens(spec, role) * outputShare);
    const { usage } = conversation;
    conversation.chars += text.length;
    const input = Math.ceil(conversation.chars / CHARS_PER_TOKEN);
    usage.inputTokens += input;
    usage.cachedInputTokens += conversation.previousInput;
    usage.cacheWriteTokens += input - conversation.previousInput;
    usage.outputTokens += replyTokens;
    conversation.previousInput = input;
    conversation.chars += replyTokens * CHARS_PER_TOKEN;
  }
  const zero: SessionEstimate = { usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 };
  return [...conversations].reduce((total, [role, { usage }]) => {
    const { model, price } = agentModel(spec, role);
    return add(total, { usage, costUsd: price ? costOf(usage, price) : isFree(model) ? 0 : null });
  }, zero);
}

export interface CellEstimate {
  readonly model: string;
  readonly rung: string;
  readonly sessions: number;
  readonly typical: SessionEstimate;
  readonly worst: SessionEstimate;
}

const tokensOf = (estimate: SessionEstimate) => estimate.usage.inputTokens + estimate.usage.outputTokens;

/**
 * The worst case, with full-length replies: an agent that never commits, so
 * every item is a decision; for a split agent also one that commits at once,
 * so its builder works on most of the stream — whichever takes more tokens.
 */
function worstSession(spec: SessionSpec, stream: Stream): SessionEstimate {
  const never = estimateSession(spec, stream, () => 'pass', 1);
  if (!spec.agent) return never;
  const eager = estimateSession(spec, stream, () => 'commit', 1);
  return tokensOf(eager) > tokensOf(never) ? eager : never;
}

/**
 * A dry run's cost estimate per model (a split agent: its planner and
 * builder) and rung. Typical: a defer-then-confirm agent (commit at the second
 * occurrence) with quarter-length replies. Worst: see worstSession.
 */
export async function estimateSweep(config: SweepConfig): Promise<CellEstimate[]> {
  const cells = new Map<string, CellEstimate>();
  const typicalPolicy = commitAtK(2);
  // A seed's stream is read once, not once per model, rung and arm that plays it.
  const streams = new Map<string, Stream>();
  for (const spec of expandSweep(config)) {
    const model = agentName(spec.model, spec.agent?.builder.model ?? null);
    const key = `${model}|${spec.rung}`;
    const streamKey = `${spec.seed}\n${streamSource(spec)}`;
    const stream = streams.get(streamKey) ?? (await streamForSpec(spec));
    streams.set(streamKey, stream);
    const typical = estimateSession(
      spec,
      stream,
      (o) => typicalPolicy.decide(o as Parameters<typeof typicalPolicy.decide>[0]),
      TYPICAL_OUTPUT_SHARE,
    );
    const worst = worstSession(spec, stream);
    const cell = cells.get(key);
    cells.set(
      key,
      cell
        ? { ...cell, sessions: cell.sessions + 1, typical: add(cell.typical, typical), worst: add(cell.worst, worst) }
        : { model, rung: spec.rung, sessions: 1, typical, worst },
    );
  }
  return [...cells.values()];
}

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOfInputs } from '../../core/families/registry.js';
import { costOf } from '../../activities/providers/prices.js';
import { LOOP_TOOL_NAMES } from '../../core/scripts/loop-tools.js';
import { systemPrompt } from '../../core/rungs/system-prompt.js';
import { framingOf, sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { anthropicMessage, chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

/*
 * A split agent of two hosted models through their real SDKs: the planner is
 * an OpenAI model (Chat Completions), the builder an Anthropic one
 * (Messages), both answered by one loopback server in each API's wire format.
 * The scripted planner claims at its 2nd, 4th and 6th decision; the scripted
 * builder recognizes the family from the named values, writes its script
 * where the problem says a write is available, runs the script and submits
 * what it returned.
 */

const temporal = serverForThisFile();

const PLANNER = 'openai/gpt-5.4-mini-2026-03-17';
const BUILDER = 'anthropic/claude-haiku-4-5-20251001';
const PRICES = {
  [PLANNER]: { input: 0.75, cachedInput: 0.075, output: 4.5 },
  [BUILDER]: { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
};
const CLAIMS_AT = [2, 4, 6];

type Block = { type: string; text?: string; name?: string; content?: string };
type Turn = { role: 'user' | 'assistant'; content: string | Block[] };
const blocksOf = (turn: Turn | undefined): Block[] =>
  typeof turn?.content === 'string' ? [{ type: 'text', text: turn.content }] : (turn?.content ?? []);

/** The planner: claim_solver at its 2nd, 4th and 6th decision, skip_solver otherwise (OpenAI wire). */
function planner(request: RecordedRequest) {
  const messages = (request.body?.messages ?? []) as { role: string }[];
  const decision = messages.filter((m) => m.role === 'assistant').length + 1;
  const tool = CLAIMS_AT.includes(decision) ? 'claim_solver' : 'skip_solver';
  return chatCompletion({ tool_calls: [functionCall(`call_${decision}`, tool, '{}')] }, { prompt_tokens: 500, completion_tokens: 20 });
}

/** The builder (Anthropic wire): on its current problem, write where a write is offered, run the type's script, submit what it returned. */
function builder(request: RecordedRequest) {
  const turns = (request.body?.messages ?? []) as Turn[];
  const isProblem = (turn: Turn) => turn.role === 'user' && blocksOf(turn).some((b) => /^Problem \d+ of/.test(b.text ?? ''));
  const opened = turns.reduce((found, turn, index) => (isProblem(turn) ? index : found), -1);
  const problem = blocksOf(turns[opened]).find((b) => /^Problem \d+ of/.test(b.text ?? ''))?.text ?? '';
  const inputs = JSON.parse(/Named values: (.*)/.exec(problem)?.[1] ?? '{}') as Record<string, unknown>;
  const family = familyOfInputs(inputs)?.name;
  if (!family) throw new Error('scripted builder: no family for these named values');
  const called = turns.slice(opened + 1).flatMap((turn) => (turn.role === 'assistant' ? blocksOf(turn).map((b) => b.name ?? '') : []));
  const lastResult = blocksOf(turns.at(-1)).find((b) => b.type === 'tool_result');
  const name = `solve-${family}`;
  const [tool, input] =
    called.at(-1) === 'run_script'
      ? ['submit_answer', { value: String((JSON.parse(lastResult?.content ?? '{}') as { returned?: unknown }).returned) }]
      : called.length === 0 && /you may write one script/.test(problem)
        ? ['write_script', { name, code: REFERENCE_SCRIPTS[family] }]
        : ['run_script', { name, inputs }];
  const usage = { input_tokens: 300, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 40 };
  return anthropicMessage([{ type: 'tool_use', id: `toolu_${turns.length}`, name: tool, input }], usage, 'tool_use');
}

let loopback: Awaited<ReturnType<typeof startLoopback>>;
const isPlanner = (request: RecordedRequest) => request.path === '/v1/chat/completions';
const isBuilder = (request: RecordedRequest) => request.path === '/v1/messages';

beforeAll(async () => {
  loopback = await startLoopback((request) =>
    isPlanner(request)
      ? { json: planner(request) }
      : isBuilder(request)
        ? { json: builder(request) }
        : { status: 404, json: { error: { message: `no route ${request.path}` } } },
  );
  process.env.OPENAI_API_KEY = 'sk-loopback';
  process.env.OPENAI_BASE_URL = `${loopback.url}/v1`;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-loopback';
  process.env.ANTHROPIC_BASE_URL = loopback.url;
});
afterAll(async () => loopback?.close());

describe('a split agent through the real OpenAI (planner) and Anthropic (builder) SDKs, Temporal and the sandbox', () => {
  it('asks each model in its own conversation and wire format, and records, costs and scores each call under its role', async () => {
    const config = parseSweepConfig({
      name: 'split-sdk',
      agent: { kind: 'split', planner: PLANNER, builder: BUILDER },
      rungs: ['R3'],
      seeds: [2000],
      prices: PRICES,
    });
    const runDir = join(temporal.dir, 'split-sdk');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 1, failed: 0, mechanicalFailures: 0 });
    const [spec] = expandSweep(config) as [SessionSpec];
    const summary = await summaryOf(runDir, spec);
    const transcript = await transcriptOf(runDir, spec);
    const plannerRequests = loopback.requests.filter(isPlanner);
    const builderRequests = loopback.requests.filter(isBuilder);

    // One request per recorded call, none paid twice: the planner's decision turns and the builder's loop calls.
    expect(plannerRequests).toHaveLength(transcript.turns.length);
    expect(builderRequests).toHaveLength(transcript.steps.length);
    const claims = transcript.turns.filter((turn) => turn.decision.action === 'commit').map((turn) => turn.t);
    expect(transcript.turns.map((turn) => turn.decision.action === 'commit')).toEqual(
      transcript.turns.map((_, index) => CLAIMS_AT.includes(index + 1)),
    );

    // The planner is asked as at R1: its system prompt, claim/skip tools and R1's output limit for a GPT-5 model.
    const r1 = framingOf({ ...spec, rung: 'R1', agent: undefined });
    for (const request of plannerRequests) {
      const messages = request.body?.messages as { role: string; content: string }[];
      expect(messages[0]).toEqual({ role: 'system', content: systemPrompt(r1) });
      expect((request.body?.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual([
        'claim_solver',
        'skip_solver',
      ]);
      expect(request.body?.max_completion_tokens).toBe(4000);
      expect(messages.some((m) => /write_script|Named values/.test(m.content ?? ''))).toBe(false);
    }
    // The builder plays R3's loop with the builder's prompt, and sees only the claimed types' problems.
    for (const request of builderRequests) {
      expect(JSON.stringify(request.body?.system)).toContain('The planner alone decides which types are worth a script');
      expect((request.body?.tools as { name: string }[]).map((tool) => tool.name)).toEqual(LOOP_TOOL_NAMES);
      expect(request.body?.max_tokens).toBe(4096);
    }
    expect(transcript.steps[0]?.t).toBe(claims[0]);
    expect(transcript.steps.filter((step) => step.outcomes.some((o) => o.kind === 'written')).map((step) => step.t)).toEqual(claims);
    expect(summary.termination).toBe('budget-exhausted');
    expect(summary.metrics).toMatchObject({ commitments: 3, unresolved: 0 });
    expect(summary.script?.metrics).toMatchObject({ builds: 3, scriptSuccessRate: 1, rawAnswers: 0, crossClassRunsRefused: 0 });
    expect([...summary.responseModels].sort()).toEqual(['claude-haiku-4-5-20251001', 'gpt-5.4-mini-2026-03-17']);
    expect(summary.modelMismatch).toBe(false);

    // Each call costed at its own model's price, in the transcript and the run's ledger, under its role.
    const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
    for (const attempt of attempts) {
      const price = attempt.role === 'planner' ? PRICES[PLANNER] : PRICES[BUILDER];
      expect(attempt.costUsd).toBeCloseTo(costOf(attempt.usage, price), 12);
    }
    expect(attempts.filter((a) => a.role === 'planner')).toHaveLength(plannerRequests.length);
    expect(attempts.filter((a) => a.role === 'builder')).toHaveLength(builderRequests.length);
    const ledger = (await openRunStore(runDir).readCosts()).filter((entry) => entry.session === sessionKey(spec));
    expect(ledger.map((entry) => `${entry.role}:${entry.t}`).sort()).toEqual(attempts.map((a) => `${a.role}:${a.t}`).sort());
    expect(summary.costUsd).toBeCloseTo(
      ledger.reduce((sum, entry) => sum + entry.costUsd, 0),
      12,
    );
  });
});

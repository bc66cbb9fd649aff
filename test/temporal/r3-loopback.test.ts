import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILY_NAMES, type FamilyName } from '../../core/families/family.js';
import { familyOfInputs } from '../../core/families/registry.js';
import { LOOP_FORMAT_REMINDER } from '../../core/scripts/loop-messages.js';
import { LOOP_TOOL_NAMES } from '../../core/scripts/loop-tools.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { runKey, type LoopStepRecord, type Transcript } from '../../run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { anthropicMessage, chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

/*
 * R3 agent-loop sessions through the real provider SDKs (Anthropic Messages,
 * OpenAI Chat Completions), a real Temporal dev server and the sandbox worker
 * process. One loopback server stands in for both APIs, answering in each
 * one's wire format; a scripted model reads the conversation it is sent and
 * makes one tool call (or none) per model call.
 */

const temporal = serverForThisFile();

const ANTHROPIC = 'anthropic/claude-haiku-4-5-20251001';
const OPENAI = 'openai/gpt-5.4-mini-2026-03-17';
type Wire = 'anthropic' | 'openai';
/** Where each SDK sends its requests under the loopback base URLs. */
const PATHS: Readonly<Record<Wire, string>> = { anthropic: '/v1/messages', openai: '/v1/chat/completions' };
const PRICES = {
  [ANTHROPIC]: { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  [OPENAI]: { input: 0.75, cachedInput: 0.075, output: 4.5 },
};

/** What every reply reports: cache reads and writes far above the counted part, which is the uncached input plus the output. */
const USAGE = { uncached: 300, cacheRead: 4000, cacheWrite: 2000, output: 50 };
const COUNTED = USAGE.uncached + USAGE.output;

// ---- The conversation as the scripted model reads it, from either wire format ----

type AnthropicBlock = {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: Record<string, unknown>;
  readonly tool_use_id?: string;
  readonly content?: string;
};
type AnthropicTurn = { readonly role: 'user' | 'assistant'; readonly content: readonly AnthropicBlock[] };
type OpenAiMessage = {
  readonly role: string;
  readonly content: string | null;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
};

type Entry =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly tools: readonly string[] }
  | { readonly role: 'tool'; readonly id: string; readonly content: string };

const wireOfPath = (path: string): Wire => (path === PATHS.anthropic ? 'anthropic' : 'openai');
const anthropicTurns = (request: RecordedRequest | undefined) => (request?.body?.messages ?? []) as AnthropicTurn[];
const openAiMessages = (request: RecordedRequest | undefined) => (request?.body?.messages ?? []) as OpenAiMessage[];

/** The messages of a request in order, each tool result and user text on its own. */
function entriesOf(request: RecordedRequest): Entry[] {
  if (wireOfPath(request.path) === 'anthropic') {
    return anthropicTurns(request).flatMap((turn): Entry[] =>
      turn.role === 'assistant'
        ? [
            {
              role: 'assistant',
              text: turn.content.map((block) => block.text ?? '').join(''),
              tools: turn.content.flatMap((block) => (block.type === 'tool_use' ? [block.name ?? ''] : [])),
            },
          ]
        : turn.content.map(
            (block): Entry =>
              block.type === 'tool_result'
                ? { role: 'tool', id: block.tool_use_id ?? '', content: block.content ?? '' }
                : { role: 'user', text: block.text ?? '' },
          ),
    );
  }
  return openAiMessages(request).flatMap((message): Entry[] => {
    if (message.role === 'user') return [{ role: 'user', text: message.content ?? '' }];
    if (message.role === 'tool') return [{ role: 'tool', id: message.tool_call_id ?? '', content: message.content ?? '' }];
    if (message.role === 'assistant')
      return [{ role: 'assistant', text: message.content ?? '', tools: (message.tool_calls ?? []).map((call) => call.function.name) }];
    return []; // the system prompt
  });
}

/** A tool result as the loop writes it: every one carries tokens_remaining. */
type ToolResult = { readonly ok: boolean; readonly tokens_remaining: number | null; readonly [key: string]: unknown };

/** Where the model stands: the current problem, and what it did on it so far. */
interface LoopView {
  readonly t: number;
  readonly inputs: Record<string, unknown>;
  /** The problem's family, recognized from its named values (the model never sees the hidden class). */
  readonly family: FamilyName;
  /** The model's replies on this problem so far, each as the tools it called (none: a reply in prose). */
  readonly replies: readonly (readonly string[])[];
  /** The result of the last tool call, when the request ends with one. */
  readonly lastResult?: ToolResult;
}

function viewOf(request: RecordedRequest): LoopView {
  const entries = entriesOf(request);
  const isProblem = (entry: Entry | undefined) => entry?.role === 'user' && /^Problem \d+ of/.test(entry.text);
  const opened = entries.reduce((found, entry, index) => (isProblem(entry) ? index : found), -1);
  const problem = entries[opened];
  if (problem?.role !== 'user') throw new Error('scripted model: no problem in the conversation');
  const t = Number(/^Problem (\d+) of/.exec(problem.text)?.[1]);
  const inputs = JSON.parse(/Named values: (.*)/.exec(problem.text)?.[1] ?? '{}') as Record<string, unknown>;
  const family = familyOfInputs(inputs)?.name;
  if (!family) throw new Error(`scripted model: no family has the named values ${JSON.stringify(inputs)}`);
  const since = entries.slice(opened + 1);
  const last = since.at(-1);
  return {
    t,
    inputs,
    family,
    replies: since.flatMap((entry) => (entry.role === 'assistant' ? [entry.tools] : [])),
    ...(last?.role === 'tool' && { lastResult: JSON.parse(last.content) as ToolResult }),
  };
}

// ---- Scripted models: a reply as a function of the conversation ----

type Action = { readonly tool: string; readonly input: Record<string, unknown> } | { readonly prose: string };
type ScriptedModel = (view: LoopView) => Action;

const write = (name: string, code: string): Action => ({ tool: 'write_script', input: { name, code } });
const run = (name: string, inputs: Record<string, unknown>): Action => ({ tool: 'run_script', input: { name, inputs } });
const submit = (value: string): Action => ({ tool: 'submit_answer', input: { value } });
/** What the last run returned, as the model submits it; 0 when the last call returned nothing. */
const returnedOrZero = (view: LoopView) =>
  view.lastResult?.ok === true && view.lastResult.returned !== undefined ? String(view.lastResult.returned) : '0';

const SPIN = 'function solve() { while (true) {} }';

/** On every problem: write a script (the family's correct one unless `code` says otherwise), run it on the problem's values, submit what it returned. */
const builder =
  (code = (view: LoopView): string => REFERENCE_SCRIPTS[view.family]): ScriptedModel =>
  (view) => {
    const name = `solve-${view.t}`;
    if (view.replies.length === 0) return write(name, code(view));
    if (view.replies.length === 1) return run(name, view.inputs);
    return submit(returnedOrZero(view));
  };

/** One script, written on problem 1 for its family and run on every problem; submits what it returned, 0 when it did not run. */
const oneScript: ScriptedModel = (view) => {
  if (view.t === 1 && view.replies.length === 0) return write('solver', REFERENCE_SCRIPTS[view.family]);
  return view.replies.at(-1)?.includes('run_script') ? submit(returnedOrZero(view)) : run('solver', view.inputs);
};

/** Answers problem 1 in prose, never calling a tool; from problem 2 on, the builder. */
const proseFirst: ScriptedModel = (view) =>
  view.t === 1 ? { prose: `This looks like ${view.family}; I would guess 42.` } : builder()(view);

/** The reply in the wire format of the API the request came to, with a tool call id unique in its session. */
function answer(model: ScriptedModel, request: RecordedRequest) {
  const wire = wireOfPath(request.path);
  const action = model(viewOf(request));
  const n = entriesOf(request).filter((entry) => entry.role === 'assistant').length + 1;
  if (wire === 'anthropic') {
    const usage = {
      input_tokens: USAGE.uncached,
      cache_read_input_tokens: USAGE.cacheRead,
      cache_creation_input_tokens: USAGE.cacheWrite,
      output_tokens: USAGE.output,
    };
    return 'prose' in action
      ? anthropicMessage([{ type: 'text', text: action.prose }], usage)
      : anthropicMessage([{ type: 'tool_use', id: `toolu_${n}`, name: action.tool, input: action.input }], usage, 'tool_use');
  }
  const usage = {
    prompt_tokens: USAGE.uncached + USAGE.cacheRead,
    completion_tokens: USAGE.output,
    total_tokens: USAGE.uncached + USAGE.cacheRead + USAGE.output,
    prompt_tokens_details: { cached_tokens: USAGE.cacheRead },
  };
  return chatCompletion(
    'prose' in action ? { content: action.prose } : { tool_calls: [functionCall(`call_${n}`, action.tool, JSON.stringify(action.input))] },
    usage,
  );
}

let model: ScriptedModel = builder();
let loopback: Awaited<ReturnType<typeof startLoopback>>;

beforeAll(async () => {
  loopback = await startLoopback((request) =>
    Object.values(PATHS).includes(request.path)
      ? { json: answer(model, request) }
      : { status: 404, json: { error: { message: `no route ${request.path}` } } },
  );
  process.env.ANTHROPIC_API_KEY = 'sk-ant-loopback';
  process.env.ANTHROPIC_BASE_URL = loopback.url;
  process.env.OPENAI_API_KEY = 'sk-loopback';
  process.env.OPENAI_BASE_URL = `${loopback.url}/v1`;
});
afterAll(async () => loopback?.close());

// ---- Sessions ----

/** Plays one R3 session per provider, seed 2000 unless `settings` say otherwise, with `scripted` as the model behind both APIs. */
async function play(name: string, scripted: ScriptedModel, settings: Record<string, unknown> = {}) {
  model = scripted;
  loopback.requests.length = 0;
  const config = parseSweepConfig({
    name,
    models: [ANTHROPIC, OPENAI],
    rungs: ['R3'],
    seeds: [2000],
    announceN: [true],
    prices: PRICES,
    window: 2,
    ...settings,
  });
  const runDir = join(temporal.dir, name);
  expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 2, failed: 0, mechanicalFailures: 0 });
  return Promise.all(
    expandSweep(config).map(async (spec) => {
      const wire: Wire = spec.model === ANTHROPIC ? 'anthropic' : 'openai';
      const stream = generateStream(spec.seed, spec.stream);
      return {
        wire,
        spec,
        stream,
        classes: stream.items.map((item) => FAMILY_NAMES.indexOf(item.family)),
        summary: await summaryOf(runDir, spec),
        transcript: await transcriptOf(runDir, spec),
        requests: loopback.requests.filter((request) => request.path === PATHS[wire]),
      };
    }),
  );
}

/** Each model call as its problem and what its tool calls did. */
const played = (transcript: Transcript) => transcript.steps.map((step) => [step.t, step.outcomes.map((outcome) => outcome.kind)]);
const stepsOn = (transcript: Transcript, t: number) => transcript.steps.filter((step) => step.t === t);
const callId = (step: LoopStepRecord | undefined) => step?.reply.toolCalls[0]?.id;
/** The last entry of a request, which must be a tool result, parsed. */
function lastResultOf(request: RecordedRequest | undefined): ToolResult {
  const last = request && entriesOf(request).at(-1);
  if (last?.role !== 'tool') throw new Error('the request does not end with a tool result');
  return JSON.parse(last.content) as ToolResult;
}

/**
 * The result of a request's last tool call in the provider's own format:
 * Anthropic, a user turn holding only the tool_result block for the
 * assistant turn's tool_use; OpenAI, a message of role 'tool' after the
 * assistant message's tool call.
 */
function wireResult(wire: Wire, request: RecordedRequest | undefined, id: string | undefined, tool: string): ToolResult {
  if (wire === 'anthropic') {
    const [call, result] = anthropicTurns(request).slice(-2);
    expect(call).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use', id, name: tool }] });
    expect(result).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: expect.any(String) }] });
    return JSON.parse(result?.content[0]?.content ?? '') as ToolResult;
  }
  const [call, result] = openAiMessages(request).slice(-2);
  expect(call).toMatchObject({ role: 'assistant', tool_calls: [{ id, type: 'function', function: { name: tool } }] });
  expect(result).toMatchObject({ role: 'tool', tool_call_id: id, content: expect.any(String) });
  return JSON.parse(result?.content ?? '') as ToolResult;
}

describe('R3 agent-loop sessions through the real Anthropic and OpenAI SDKs, Temporal and the sandbox worker process', () => {
  it('write_script, run_script, submit_answer: the value the script returned is submitted and scores; tool results go back in each wire format', async () => {
    const sessions = await play('build-run-submit', builder(), { budgets: [2] });
    for (const { wire, spec, stream, summary, transcript, requests } of sessions) {
      // Problem 1 is written, run and answered; the second write (B = 2) ends the session, as the paper's protocol did.
      expect(played(transcript), wire).toEqual([
        [1, ['written']],
        [1, ['run']],
        [1, ['submitted']],
        [2, ['written']],
      ]);
      expect(requests, wire).toHaveLength(4);
      expect(summary, wire).toMatchObject({
        termination: 'budget-exhausted',
        modelMismatch: false,
        responseModels: [spec.model.slice(spec.model.indexOf('/') + 1)],
      });

      const execution = transcript.executions.get(runKey(2, 0));
      expect(execution, wire).toMatchObject({ t: 1, name: 'solve-1', correct: true, outcome: { ok: true } });
      const returned = execution?.outcome.ok ? execution.outcome.value : undefined;
      const gold = stream.items[0]?.answer;
      expect(String(returned), wire).toBe(gold);
      expect(transcript.steps[2]?.submitted, wire).toEqual({ value: gold, correct: true });
      expect(summary.script?.metrics, wire).toMatchObject({
        playedTurns: 2,
        modelCalls: 4,
        builds: 2,
        scriptRuns: 1,
        scriptCorrect: 1,
        submitted: 1,
        answeredCorrectly: 1,
        rawAnswers: 0,
      });

      // Problem 1's second request carries the write's result, its third the run's, each with the tokens left under the cap.
      const cap = spec.tokenCap ?? NaN;
      const [written, ran, submitted] = transcript.steps.map(callId);
      expect(wireResult(wire, requests[1], written, 'write_script'), wire).toMatchObject({
        ok: true,
        writes_remaining: 1,
        tokens_remaining: cap - COUNTED,
      });
      expect(wireResult(wire, requests[2], ran, 'run_script'), wire).toMatchObject({
        ok: true,
        returned,
        tokens_remaining: cap - 2 * COUNTED,
      });
      // Problem 2 opens with the submission's result, then the problem.
      const problem2 = expect.stringMatching(/^Problem 2 of 60:/);
      if (wire === 'anthropic') {
        expect(anthropicTurns(requests[3]).at(-1)).toMatchObject({
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: submitted },
            { type: 'text', text: problem2 },
          ],
        });
      } else {
        expect(openAiMessages(requests[3]).slice(-2)).toMatchObject([
          { role: 'tool', tool_call_id: submitted },
          { role: 'user', content: problem2 },
        ]);
      }
      // Every request offers R3's five tools, the model free to call one or not.
      for (const request of requests) {
        const tools = (request.body?.tools ?? []) as { name?: string; function?: { name: string } }[];
        expect(tools.map((tool) => tool.name ?? tool.function?.name)).toEqual(LOOP_TOOL_NAMES);
        expect(request.body?.tool_choice).toEqual(wire === 'anthropic' ? { type: 'auto' } : 'auto');
      }
    }
  });

  it("refuses a run of a script written on another class's problem without running it, and counts it", async () => {
    // Seed 2006's three-problem stream is a class, another, then the first again: one refused run and one accepted reuse.
    const sessions = await play('cross-class', oneScript, { seeds: [2006], stream: { length: 3 }, r3: { end: 'stream-end' } });
    for (const { wire, stream, classes, summary, transcript, requests } of sessions) {
      const problems = stream.items.map((_, index) => index + 1);
      const sameClass = problems.filter((t) => classes[t - 1] === classes[0]);
      const otherClass = problems.filter((t) => classes[t - 1] !== classes[0]);
      expect(sameClass.length, 'the first class recurs').toBeGreaterThan(1);
      expect(otherClass.length, 'another class appears').toBeGreaterThan(0);

      expect(summary.termination, wire).toBe('stream-end');
      for (const t of problems.slice(1)) {
        const [runCall, submitCall] = stepsOn(transcript, t);
        const accepted = sameClass.includes(t);
        expect(runCall?.outcomes, `${wire} problem ${t}`).toEqual([{ kind: accepted ? 'run' : 'run-refused', name: 'solver' }]);
        expect(submitCall?.submitted?.correct, `${wire} problem ${t}`).toBe(accepted);
        if (!accepted) {
          // The refusal goes back to the model, with the tokens left, in the request that follows.
          const next = requests[runCall?.call ?? 0];
          expect(lastResultOf(next), wire).toMatchObject({
            ok: false,
            error: expect.stringMatching(/different type/),
            tokens_remaining: expect.any(Number),
          });
        }
      }
      // Only runs on the script's own class ran: no execution, nor its start, for a refused run.
      expect(
        [...transcript.executions.values()].map((execution) => execution.t).sort((a, b) => a - b),
        wire,
      ).toEqual(sameClass);
      expect(
        transcript.records.filter((record) => record.type === 'execution-start'),
        wire,
      ).toHaveLength(sameClass.length);
      expect(summary.script?.metrics, wire).toMatchObject({
        crossClassRunsRefused: otherClass.length,
        scriptRuns: sameClass.length,
        reuseRuns: sameClass.length - 1,
        answeredCorrectly: sameClass.length,
        builds: 1,
      });
    }
  });

  it('refuses a write once the B writes are spent, saving nothing, and counts it', async () => {
    const sessions = await play('over-budget', builder(), { budgets: [2], stream: { length: 3 }, r3: { end: 'stream-end' } });
    for (const { wire, spec, stream, summary, transcript, requests } of sessions) {
      expect(spec.budget).toBe(2);
      // Problems 1 and 2 spend the two writes; problem 3's write is refused, so its run finds no script.
      expect(played(transcript), wire).toEqual([
        [1, ['written']],
        [1, ['run']],
        [1, ['submitted']],
        [2, ['written']],
        [2, ['run']],
        [2, ['submitted']],
        [3, ['write-refused']],
        [3, ['run-missing']],
        [3, ['submitted']],
      ]);
      const [refused, missing] = stepsOn(transcript, 3);
      expect(refused?.writesLeft, wire).toBe(0);
      expect(lastResultOf(requests[refused?.call ?? 0]), wire).toMatchObject({ ok: false, writes_remaining: 0 });
      expect(lastResultOf(requests[missing?.call ?? 0]), wire).toMatchObject({ ok: false, scripts: ['solve-1', 'solve-2'] });
      expect(
        [...transcript.executions.values()].map((execution) => execution.t),
        wire,
      ).toEqual([1, 2]);
      expect(stream.items[2]?.answer).not.toBe('0');
      expect(summary, wire).toMatchObject({ termination: 'stream-end' });
      expect(summary.script?.metrics, wire).toMatchObject({ builds: 2, writesRefused: 1, scriptRuns: 2, answeredCorrectly: 2 });
    }
  });

  it('answers a reply without a tool call with the format reminder, and moves on unanswered after a second', async () => {
    const sessions = await play('silent', proseFirst, { budgets: [1] });
    for (const { wire, summary, transcript, requests } of sessions) {
      const [first, second, third] = transcript.steps;
      expect(first, wire).toMatchObject({ t: 1, outcomes: [], advanced: null, user: expect.stringMatching(/^Problem 1 of/) });
      expect(second, wire).toMatchObject({ t: 1, outcomes: [], advanced: 'forced', user: LOOP_FORMAT_REMINDER });
      expect(second?.submitted, wire).toBeUndefined();
      // Problem 2 opens next; its write (B = 1) ends the session.
      expect(third, wire).toMatchObject({ t: 2, outcomes: [{ kind: 'written' }], user: expect.stringMatching(/^Problem 2 of/) });
      expect(transcript.steps, wire).toHaveLength(3);
      // A hosted model's reply without a tool call is a model call of its own, never asked again.
      expect(requests, wire).toHaveLength(3);
      for (const call of [1, 2])
        expect(
          transcript.attemptsSinceResume(call).map((a) => a.stopReason),
          wire,
        ).toEqual(['end']);

      // The prose reply stays in the conversation, followed by the reminder as a user message.
      const prose = first?.reply.text ?? '';
      if (wire === 'anthropic') {
        expect(anthropicTurns(requests[1]).slice(-2)).toMatchObject([
          { role: 'assistant', content: [{ type: 'text', text: prose }] },
          { role: 'user', content: [{ type: 'text', text: LOOP_FORMAT_REMINDER }] },
        ]);
      } else {
        expect(openAiMessages(requests[1]).slice(-2)).toEqual([
          { role: 'assistant', content: prose },
          { role: 'user', content: LOOP_FORMAT_REMINDER },
        ]);
      }
      const opening = entriesOf(requests[2]!);
      expect(opening.at(-1), wire).toEqual({ role: 'user', text: third?.user });
      expect(
        opening.filter((entry) => entry.role === 'tool'),
        wire,
      ).toEqual([]);

      expect(summary.termination, wire).toBe('budget-exhausted');
      expect(summary.script?.metrics, wire).toMatchObject({ forcedAdvances: 1, submitted: 0, playedTurns: 2, modelCalls: 3 });
    }
  });

  it('ends a session at the token cap mid-problem, counting uncached input plus output and neither cache reads nor writes', async () => {
    // Two calls count 2 × COUNTED, past this cap; one call's cache reads alone would be past it.
    const tokenCap = 2 * COUNTED - 1;
    expect(USAGE.cacheRead).toBeGreaterThan(tokenCap);
    const sessions = await play('token-cap', builder(), { tokenCap });
    for (const { wire, summary, transcript, requests } of sessions) {
      expect(summary.termination, wire).toBe('token-cap');
      expect(transcript.ended, wire).toBe('token-cap');
      // Written and run, never submitted: the third call is not made.
      expect(played(transcript), wire).toEqual([
        [1, ['written']],
        [1, ['run']],
      ]);
      expect(requests, wire).toHaveLength(2);
      expect(transcript.steps.at(-1)?.advanced, wire).toBeNull();
      expect(
        transcript.steps.map((step) => step.tokensRemaining),
        wire,
      ).toEqual([tokenCap - COUNTED, 0]);
      expect(lastResultOf(requests[1]).tokens_remaining, wire).toBe(tokenCap - COUNTED);
      expect(transcript.tokensUsed, wire).toBe(2 * COUNTED);
      // The cache reads (and Anthropic's cache writes) were reported and recorded, just not counted.
      expect(summary.usage.cachedInputTokens, wire).toBe(2 * USAGE.cacheRead);
      const input = USAGE.uncached + USAGE.cacheRead + (wire === 'anthropic' ? USAGE.cacheWrite : 0);
      expect(summary.usage.inputTokens, wire).toBe(2 * input);
      expect(summary.script?.metrics, wire).toMatchObject({ playedTurns: 1, modelCalls: 2, submitted: 0, scriptRuns: 1 });
    }
  });

  it('records a script that never returns as a timeout, and the session goes on', async () => {
    const timeoutMs = 200;
    const spinFirst = builder((view) => (view.t === 1 ? SPIN : REFERENCE_SCRIPTS[view.family]));
    const sessions = await play('spin', spinFirst, { r3: { timeoutMs } });
    for (const { wire, stream, summary, transcript, requests } of sessions) {
      // Problem 1's run times out and 0 is submitted; problem 2 is written, run and answered; the third write ends the session.
      expect(played(transcript), wire).toEqual([
        [1, ['written']],
        [1, ['run']],
        [1, ['submitted']],
        [2, ['written']],
        [2, ['run']],
        [2, ['submitted']],
        [3, ['written']],
      ]);
      const spin = transcript.executions.get(runKey(2, 0));
      expect(spin, wire).toMatchObject({ t: 1, correct: false, outcome: { ok: false, kind: 'timeout' } });
      expect(spin?.outcome.ms ?? Infinity, wire).toBeGreaterThanOrEqual(timeoutMs);
      expect(spin?.outcome.ms ?? Infinity, wire).toBeLessThan(5000);
      expect(lastResultOf(requests[2]), wire).toMatchObject({ ok: false, error: expect.stringMatching(/^timeout:/) });
      expect(stepsOn(transcript, 1).at(-1)?.submitted, wire).toEqual({ value: '0', correct: false });
      expect(transcript.executions.get(runKey(5, 0)), wire).toMatchObject({ t: 2, correct: true, outcome: { ok: true } });
      expect(stepsOn(transcript, 2).at(-1)?.submitted, wire).toEqual({ value: stream.items[1]?.answer, correct: true });
      expect(summary.termination, wire).toBe('budget-exhausted');
      expect(summary.script?.metrics, wire).toMatchObject({ scriptRuns: 2, scriptReturns: 1, scriptCorrect: 1, answeredCorrectly: 1 });
    }
  });
});

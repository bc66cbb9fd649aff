import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOfInputs } from '../../core/families/registry.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { readPriceTable } from '../../activities/providers/prices.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { startLoopback, type RecordedRequest, type Scripted } from '../activities/providers/loopback.js';
import {
  functionCallItem,
  geminiResponse,
  googleError,
  openAiError,
  reasoningItem,
  responsesResponse,
} from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

/*
 * The two reasoning providers end to end: sessions through a real Temporal
 * dev server (and, at R3, the sandbox worker process), the real SDKs talking
 * to one loopback server that speaks both wire formats. The server holds each
 * model to what the real APIs require of a conversation that carries its
 * reasoning: Gemini's model turns must come back exactly as issued, thought
 * signatures and all, and the Responses API's reasoning items must come back
 * with their encrypted content and without ids (nothing is stored); a request
 * that breaks the rule is refused with a 400, which would stop the session.
 */

const temporal = serverForThisFile();
const GEMINI = 'google/gemini-2.5-flash';
const RESPONSES = 'openai-responses/gpt-5.4-mini-2026-03-17';
const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
const RESPONSES_PATH = '/v1/responses';
const PRICES = {
  [GEMINI]: readPriceTable(join(process.cwd(), 'config', 'prices.yaml'))[GEMINI],
  [RESPONSES]: { input: 0.75, cachedInput: 0.075, output: 4.5 },
};
const THOUGHTS = 30;

type Part = {
  text?: string;
  thoughtSignature?: string;
  functionCall?: { name: string; args: object };
  functionResponse?: { response: { output: string } };
};
type Content = { role: string; parts: Part[] };
type Item = { type?: string; role?: string; id?: string; content?: unknown; output?: string; encrypted_content?: string };

/** What the model did so far in the conversation, read from either wire format. */
interface View {
  /** The model's earlier replies. */
  readonly replies: number;
  /** The texts of the user turns, in order. */
  readonly userTexts: readonly string[];
  /** The output of the last tool result, when the request ends with one. */
  readonly lastResult?: string;
}

function geminiView(contents: readonly Content[]): View {
  const parts = contents.flatMap((c) => (c.role === 'user' ? c.parts : []));
  const last = contents.at(-1)?.parts.at(-1);
  return {
    replies: contents.filter((c) => c.role === 'model').length,
    userTexts: parts.flatMap((p) => (p.text === undefined ? [] : [p.text])),
    ...(last?.functionResponse && { lastResult: last.functionResponse.response.output }),
  };
}

function responsesView(input: readonly Item[]): View {
  const last = input.at(-1);
  return {
    replies: input.filter((item) => item.type === 'reasoning').length,
    userTexts: input.flatMap((item) => (item.role === 'user' && typeof item.content === 'string' ? [item.content] : [])),
    ...(last?.type === 'function_call_output' && { lastResult: last.output }),
  };
}

/** R1: claim the first problem's type, skip every later one. R3 (one problem): write its family's script, run it, submit what it returned. */
function decide(view: View, r3: boolean): { name: string; args: Record<string, unknown> } {
  if (!r3) return { name: view.replies === 0 ? 'claim_solver' : 'skip_solver', args: {} };
  const inputs = JSON.parse(/Named values: (.*)/.exec(view.userTexts.at(-1) ?? '')?.[1] ?? '{}') as Record<string, unknown>;
  const family = familyOfInputs(inputs)?.name;
  if (!family) throw new Error('scripted model: no family for the named values');
  if (view.replies === 0) return { name: 'write_script', args: { name: 'solver', code: REFERENCE_SCRIPTS[family] } };
  if (view.replies === 1) return { name: 'run_script', args: { name: 'solver', inputs } };
  const returned = (JSON.parse(view.lastResult ?? '{}') as { returned?: unknown }).returned;
  return { name: 'submit_answer', args: { value: String(returned) } };
}

/** Every model turn the Gemini side issued, by its thought signature. */
const issuedParts = new Map<string, Part[]>();
/** Every encrypted reasoning the Responses side issued. */
const issuedReasoning = new Set<string>();
let refused: string[] = [];
let turn = 0;

function gemini(request: RecordedRequest): Scripted {
  const contents = (request.body?.contents ?? []) as Content[];
  for (const model of contents.filter((c) => c.role === 'model')) {
    const signature = model.parts.find((p) => p.thoughtSignature)?.thoughtSignature;
    if (!signature || !isDeepStrictEqual(model.parts, issuedParts.get(signature))) {
      refused.push('gemini: a model turn came back changed');
      return {
        status: 400,
        json: googleError(400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature in functionCall parts.'),
      };
    }
  }
  const view = geminiView(contents);
  const call = decide(view, Array.isArray(request.body?.tools) && JSON.stringify(request.body?.tools).includes('write_script'));
  const signature = Buffer.from(`gemini-thought-${++turn}`).toString('base64');
  const parts: Part[] = [{ functionCall: call, thoughtSignature: signature }];
  issuedParts.set(signature, parts);
  const prompt = Math.ceil(JSON.stringify(request.body).length / 4);
  return {
    json: geminiResponse(parts, {
      promptTokenCount: prompt,
      cachedContentTokenCount: view.replies === 0 ? 0 : prompt - 60,
      candidatesTokenCount: 12,
      thoughtsTokenCount: THOUGHTS,
    }),
  };
}

function responses(request: RecordedRequest): Scripted {
  const input = (request.body?.input ?? []) as Item[];
  const reasoning = input.filter((item) => item.type === 'reasoning');
  const intact = reasoning.every((item) => issuedReasoning.has(item.encrypted_content ?? ''));
  const named = input.find((item) => item.id !== undefined);
  if (named || !intact || request.body?.store !== false) {
    refused.push('responses: an item came back with an id or without its encrypted reasoning');
    return { status: 400, json: openAiError(`Item with id '${named?.id}' not found.`, 'invalid_request_error') };
  }
  const view = responsesView(input);
  const call = decide(view, JSON.stringify(request.body?.tools ?? []).includes('write_script'));
  const n = ++turn;
  issuedReasoning.add(`encrypted-reasoning-${n}`);
  return {
    json: responsesResponse(
      [
        reasoningItem(`rs_${n}`, `encrypted-reasoning-${n}`),
        functionCallItem(`fc_${n}`, `call_${n}`, call.name, JSON.stringify(call.args)),
      ],
      {
        input_tokens: 900,
        input_tokens_details: { cached_tokens: view.replies === 0 ? 0 : 800 },
        output_tokens: 12 + THOUGHTS,
        output_tokens_details: { reasoning_tokens: THOUGHTS },
      },
    ),
  };
}

let loopback: Awaited<ReturnType<typeof startLoopback>>;

beforeAll(async () => {
  loopback = await startLoopback((request) =>
    request.path === GEMINI_PATH
      ? gemini(request)
      : request.path === RESPONSES_PATH
        ? responses(request)
        : { status: 404, json: { error: { message: `no route ${request.path}` } } },
  );
  process.env.GEMINI_API_KEY = 'AIza-loopback-gemini-key-0123456789abcdef';
  process.env.GOOGLE_GEMINI_BASE_URL = loopback.url;
  process.env.OPENAI_API_KEY = 'sk-loopback-responses';
  process.env.OPENAI_BASE_URL = `${loopback.url}/v1`;
});
afterAll(async () => loopback?.close());

async function play(name: string, settings: Record<string, unknown>) {
  loopback.requests.length = 0;
  refused = [];
  const config = parseSweepConfig({ name, models: [GEMINI, RESPONSES], seeds: [2000], announceN: [true], prices: PRICES, ...settings });
  const runDir = join(temporal.dir, name);
  expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 2, failed: 0, mechanicalFailures: 0 });
  expect(refused).toEqual([]);
  return Promise.all(
    expandSweep(config).map(async (spec) => ({
      spec,
      summary: await summaryOf(runDir, spec),
      transcript: await transcriptOf(runDir, spec),
      requests: loopback.requests.filter((r) => r.path === (spec.model === GEMINI ? GEMINI_PATH : RESPONSES_PATH)),
    })),
  );
}

describe('Gemini and the OpenAI Responses API through Temporal, reasoning carried across turns', () => {
  it('R1: a short session per provider, every reply (with its reasoning) sent back in later turns, usage with reasoning recorded and priced', async () => {
    for (const { spec, summary, transcript, requests } of await play('reasoning-r1', { rungs: ['R1'], stream: { length: 8 } })) {
      const model = spec.model;
      expect(summary, model).toMatchObject({ termination: 'stream-end', modelMismatch: false, mechanicalFailure: false });
      expect(summary.metrics.unresolved, model).toBe(0);
      expect(transcript.turns.map((t) => t.decision.action)[0], model).toBe('commit');
      expect(requests.length, model).toBe(summary.metrics.decisionTurns);
      expect(requests.length, model).toBeGreaterThan(2);
      // Reasoning raised the output limit to 4,000 at R1.
      for (const request of requests)
        expect(
          model === GEMINI
            ? (request.body?.generationConfig as { maxOutputTokens: number }).maxOutputTokens
            : request.body?.max_output_tokens,
        ).toBe(4000);
      // The last request carries every earlier reply's reasoning: one signed model turn, or one encrypted reasoning item, per turn.
      const last = requests.at(-1)!;
      const carried =
        model === GEMINI
          ? ((last.body?.contents ?? []) as Content[]).filter((c) => c.role === 'model' && c.parts[0]?.thoughtSignature).length
          : ((last.body?.input ?? []) as Item[]).filter((i) => i.type === 'reasoning' && i.encrypted_content).length;
      expect(carried, model).toBe(requests.length - 1);
      // Each turn keeps its reply's replay in the run store, and each attempt its usage, reasoning included.
      expect(
        transcript.turns.every((t) => t.reply.replay !== undefined),
        model,
      ).toBe(true);
      const attempts = transcript.records.filter((r) => r.type === 'attempt');
      expect(attempts).toHaveLength(requests.length);
      for (const attempt of attempts) {
        expect(attempt, model).toMatchObject({
          outcome: 'ok',
          stopReason: 'tool-use',
          usage: { reasoningTokens: THOUGHTS, outputTokens: 12 + THOUGHTS },
        });
        expect(attempt.costUsd, model).toBeGreaterThan(0);
      }
      expect(summary.usage.cachedInputTokens, model).toBeGreaterThan(0);
    }
  });

  it('R3: one problem per provider (write, run, submit) with function results going back beside the reasoning', async () => {
    const sessions = await play('reasoning-r3', {
      rungs: ['R3'],
      budgets: [1],
      stream: { length: 1, budget: 1 },
      r3: { end: 'stream-end' },
    });
    for (const { spec, summary, transcript, requests } of sessions) {
      const model = spec.model;
      expect(summary, model).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
      expect(
        transcript.steps.map((s) => s.outcomes.map((o) => o.kind)),
        model,
      ).toEqual([['written'], ['run'], ['submitted']]);
      expect(summary.script?.metrics, model).toMatchObject({ modelCalls: 3, scriptRuns: 1, answeredCorrectly: 1 });
      expect(requests, model).toHaveLength(3);
      const third = requests[2]!;
      if (model === GEMINI) {
        const contents = (third.body?.contents ?? []) as Content[];
        expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
        expect(contents.at(-1)?.parts[0]?.functionResponse?.response.output).toMatch(/"returned"/);
      } else {
        const input = (third.body?.input ?? []) as Item[];
        expect(input.map((i) => i.type ?? i.role)).toEqual([
          'user',
          'reasoning',
          'function_call',
          'function_call_output',
          'reasoning',
          'function_call',
          'function_call_output',
        ]);
      }
    }
  });
});

import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { googleProvider } from '../../../activities/providers/google-provider.js';
import { costOf, readPriceTable } from '../../../activities/providers/prices.js';
import type { GenerateRequest } from '../../../activities/providers/provider.js';
import { createProvider } from '../../../activities/providers/registry.js';
import { conversation, type Exchange } from '../../../core/chat/conversation.js';
import type { ModelReply } from '../../../core/chat/messages.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { loopToolSpecs } from '../../../core/scripts/loop-tools.js';
import { countedTokens } from '../../../run-store/transcript.js';
import { startLoopback, type RecordedRequest, type Scripted } from './loopback.js';
import { requestFor, secondTurn } from './request.js';
import { geminiResponse, googleError } from './wire.js';

const MODEL = 'google/gemini-2.5-flash';
const KEY = 'AIzaSy-gemini-test-key-never-logged-0123';
const PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

type Script = (index: number, request: RecordedRequest) => Scripted;

async function against(script: Script, options: { model?: string; env?: Record<string, string>; timeoutMs?: number } = {}) {
  const loopback = await startLoopback((request, index) => script(index, request));
  close = loopback.close;
  const env = { GEMINI_API_KEY: KEY, GOOGLE_GEMINI_BASE_URL: loopback.url, ...options.env };
  const provider = googleProvider(options.model ?? MODEL, env, options.timeoutMs ?? 5000);
  return { provider, requests: loopback.requests };
}

const body = (request: RecordedRequest | undefined) => request?.body as Record<string, unknown> & { generationConfig?: object };

describe('Gemini API adapter (real @google/genai SDK, loopback server)', () => {
  it('a text rung turn: generateContent with the key header, systemInstruction and the output limit, no tools; thought summaries are not the reply', async () => {
    const { provider, requests } = await against(() => ({
      json: geminiResponse([{ text: 'Weighing the draw…', thought: true }, { text: 'Seen before.\nDECISION: KEEP' }]),
    }));
    const reply = await provider.generate({ ...requestFor('R0'), maxOutputTokens: 4000 });
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(PATH);
    expect(request?.headers['x-goog-api-key']).toBe(KEY);
    expect(body(request)).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Problem 1 of 60: ...' }] }],
      systemInstruction: { parts: [{ text: 'You will be shown 60 numeric problems.' }] },
      generationConfig: { maxOutputTokens: 4000 },
    });
    for (const absent of ['tools', 'toolConfig']) expect(body(request)).not.toHaveProperty(absent);
    for (const absent of ['temperature', 'thinkingConfig']) expect(body(request)?.generationConfig).not.toHaveProperty(absent);
    expect(reply.text).toBe('Seen before.\nDECISION: KEEP');
    expect(parseReply('R0', reply)).toMatchObject({ resolved: true, action: 'commit' });
    expect(reply).toMatchObject({ stopReason: 'end', responseModel: 'gemini-2.5-flash', toolCalls: [] });
  });

  it('a tool rung turn: function declarations with calling AUTO (ANY when required), the conversation as contents, a function call read as the decision', async () => {
    const { provider, requests } = await against(() => ({ json: geminiResponse([{ functionCall: { name: 'skip_solver', args: {} } }]) }));
    const reply = await provider.generate(requestFor('R1', secondTurn));
    expect(parseReply('R1', reply)).toMatchObject({ resolved: true, action: 'pass' });
    expect(reply.stopReason).toBe('tool-use');
    expect(reply.toolCalls).toEqual([{ id: 'call_4_1', name: 'skip_solver', arguments: '{}' }]);
    expect(body(requests[0])).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            { name: 'claim_solver', parametersJsonSchema: { type: 'object' } },
            { name: 'skip_solver', parametersJsonSchema: { type: 'object' } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      contents: [
        { role: 'user', parts: [{ text: 'Problem 1 of 60: first' }] },
        { role: 'model', parts: [{ text: 'I will claim.' }, { functionCall: { name: 'claim_solver', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'claim_solver', response: { output: 'Claimed.' } } }, { text: 'Problem 2 of 60: second' }],
        },
      ],
    });
    const declarations = (body(requests[0])?.tools as { functionDeclarations: object[] }[])[0]?.functionDeclarations ?? [];
    for (const declaration of declarations) expect(JSON.stringify(declaration)).not.toContain('$schema');

    await provider.generate({ ...requestFor('probe'), toolChoice: 'required', temperature: 0 });
    expect(body(requests[1])).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: { temperature: 0 },
    });
  });

  it('an R3 agent-loop exchange: model turns go back exactly as received, thought signatures included, with a functionResponse per call', async () => {
    // What the model said on each call, as the server remembers it; a request that changes one is refused, as Gemini 3 refuses a missing signature.
    const issued = [
      [
        {
          functionCall: { name: 'write_script', args: { name: 'solver', code: 'function solve(i) { return i.a + i.b; }' } },
          thoughtSignature: 'c2lnLW9uZQ==',
        },
      ],
      [
        { text: 'Running it on this problem.', thoughtSignature: 'c2lnLXR3by10ZXh0' },
        {
          functionCall: { id: 'fc-2', name: 'run_script', args: { name: 'solver', inputs: { a: 2, b: 3 } } },
          thoughtSignature: 'c2lnLXR3bw==',
        },
      ],
      [{ functionCall: { id: 'fc-3', name: 'submit_answer', args: { value: '5' } }, thoughtSignature: 'c2lnLXRocmVl' }],
    ];
    const { provider, requests } = await against((index, request) => {
      const modelTurns = ((request.body?.contents ?? []) as { role: string; parts: unknown[] }[]).filter((c) => c.role === 'model');
      const intact = modelTurns.every((turn, i) => isDeepStrictEqual(turn.parts, issued[i]));
      if (!intact) return { status: 400, json: googleError(400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature.') };
      return { json: geminiResponse(issued[index] ?? [], { thoughtsTokenCount: 40 }) };
    });
    const loop = (messages: GenerateRequest['messages']): GenerateRequest => ({
      ...requestFor('R3', messages),
      tools: loopToolSpecs(),
      maxOutputTokens: 4096,
    });
    // Each reply kept as the run store keeps it (a JSON line), then rebuilt into the next request.
    const kept = (reply: ModelReply): ModelReply =>
      JSON.parse(JSON.stringify({ text: reply.text, toolCalls: reply.toolCalls, replay: reply.replay }));
    const exchanges: Exchange[] = [];
    const first = kept(await provider.generate(loop(conversation([], 'Problem 1 of 60:\nAdd a and b.'))));
    exchanges.push({
      user: 'Problem 1 of 60:\nAdd a and b.',
      reply: first,
      toolResults: [{ toolCallId: first.toolCalls[0]!.id, content: '{"ok":true}' }],
    });
    const second = kept(await provider.generate(loop(conversation(exchanges, undefined))));
    expect(second.text).toBe('Running it on this problem.');
    exchanges.push({ reply: second, toolResults: [{ toolCallId: 'fc-2', content: '{"ok":true,"returned":5}' }] });
    const third = await provider.generate(loop(conversation(exchanges, undefined)));

    expect(third.toolCalls).toEqual([{ id: 'fc-3', name: 'submit_answer', arguments: '{"value":"5"}' }]);
    expect(requests).toHaveLength(3);
    expect(body(requests[2])?.contents).toEqual([
      { role: 'user', parts: [{ text: 'Problem 1 of 60:\nAdd a and b.' }] },
      { role: 'model', parts: issued[0] },
      // The API gave the first call no id, so its response carries none; the second's carries the API's id.
      { role: 'user', parts: [{ functionResponse: { name: 'write_script', response: { output: '{"ok":true}' } } }] },
      { role: 'model', parts: issued[1] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc-2', name: 'run_script', response: { output: '{"ok":true,"returned":5}' } } }] },
    ]);
  });

  it('maps usage to the components: prompt tokens include the cached part, output is candidates plus thoughts, thoughts are the reasoning', async () => {
    const { provider } = await against(() => ({
      json: geminiResponse([{ text: 'DECISION: PASS' }], {
        promptTokenCount: 1000,
        cachedContentTokenCount: 600,
        candidatesTokenCount: 50,
        thoughtsTokenCount: 200,
        totalTokenCount: 1250,
      }),
    }));
    const { usage, usageEstimated } = await provider.generate(requestFor('R0'));
    expect(usage).toEqual({ inputTokens: 1000, cachedInputTokens: 600, outputTokens: 250, reasoningTokens: 200 });
    expect(usageEstimated).toBe(false);
    // The session cap counts uncached input plus output: 400 + 250.
    expect(countedTokens(usage)).toBe(650);
    const price = readPriceTable(join(process.cwd(), 'config', 'prices.yaml'))[MODEL];
    if (!price) throw new Error(`config/prices.yaml has no price for ${MODEL}`);
    // Uncached input at the input price, cache reads at the cached price, thoughts billed as output.
    expect(costOf(usage, price)).toBeCloseTo((400 * price.input + 600 * price.cachedInput + 250 * price.output) / 1e6, 12);
  });

  it('reports why each reply ended, in the harness terms, a blocked prompt included', async () => {
    const replies = [
      geminiResponse([{ text: 'Hmm' }], {}, 'STOP'),
      geminiResponse([{ functionCall: { name: 'keep', args: {} } }], {}, 'STOP'),
      geminiResponse([{ text: 'Let me think' }], {}, 'MAX_TOKENS'),
      geminiResponse([], {}, 'SAFETY'),
      geminiResponse([], {}, 'MALFORMED_FUNCTION_CALL'),
      { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9 }, modelVersion: 'gemini-2.5-flash' },
    ];
    const { provider } = await against((i) => ({ json: replies[i] }));
    const replies_ = [];
    for (let i = 0; i < replies.length; i++) replies_.push(await provider.generate(requestFor('probe')));
    expect(replies_.map((r) => r.stopReason)).toEqual(['end', 'tool-use', 'length', 'content-filter', 'other', 'content-filter']);
    expect(replies_[5]).toMatchObject({ text: '', toolCalls: [] });
    expect(replies_[5]).not.toHaveProperty('replay');
  });

  it('classifies 429 (with RetryInfo) and an overloaded 503 as throttled, 500, 503, dropped connections and timeouts as transport; bad requests and keys as permanent; one request each', async () => {
    const rateLimited = googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generate_content_free_tier_requests' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' },
    ]);
    const script: Scripted[] = [
      { status: 429, json: rateLimited },
      { status: 429, json: googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted.') },
      { status: 500, json: googleError(500, 'INTERNAL', 'An internal error has occurred.') },
      { status: 503, json: googleError(503, 'UNAVAILABLE', 'The model is overloaded.') },
      'drop',
      { hangMs: 2000 },
      { status: 400, json: googleError(400, 'INVALID_ARGUMENT', 'The input token count exceeds the maximum number of tokens allowed.') },
      {
        status: 400,
        json: googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
        ]),
      },
      { status: 403, json: googleError(403, 'PERMISSION_DENIED', 'Method doesn’t allow unregistered callers.') },
    ];
    const { provider, requests } = await against((i) => script[i] as Scripted, { timeoutMs: 300 });
    const classes = [];
    for (let i = 0; i < script.length; i++)
      classes.push(provider.classify(await provider.generate(requestFor('R0')).catch((e: unknown) => e)));
    expect(classes).toEqual([
      { errorClass: 'transport', retryAfterMs: 37_000, throttled: '429' },
      { errorClass: 'transport', throttled: '429' },
      { errorClass: 'transport' },
      { errorClass: 'transport', throttled: '503 overloaded' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'permanent' },
      { errorClass: 'permanent' },
      { errorClass: 'permanent' },
    ]);
    // The SDK retried nothing itself: one request per call.
    expect(requests).toHaveLength(script.length);
  });

  it('sets thinking per model id: a budget or a level, sent as thinkingConfig; a bad option is one line', async () => {
    const { provider, requests } = await against(() => ({ json: geminiResponse([{ text: 'DECISION: PASS' }]) }), {
      model: `${MODEL}?thinking_budget=0`,
    });
    await provider.generate(requestFor('R0'));
    expect(body(requests[0])?.generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 0 } });
    await close?.();
    const leveled = await against(() => ({ json: geminiResponse([{ text: 'DECISION: PASS' }], {}, 'STOP', 'gemini-3-pro-preview') }), {
      model: 'google/gemini-3-pro-preview?thinking_level=low',
    });
    const reply = await leveled.provider.generate(requestFor('R0'));
    expect(leveled.requests[0]?.path).toBe('/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(body(leveled.requests[0])?.generationConfig).toMatchObject({ thinkingConfig: { thinkingLevel: 'LOW' } });
    expect(reply.responseModel).toBe('gemini-3-pro-preview');

    expect(() => createProvider(`${MODEL}?temperature=0`)).toThrow(
      /unknown option 'temperature' \(options: thinking_budget, thinking_level\)/,
    );
    expect(() => createProvider(`${MODEL}?thinking_budget=lots`)).toThrow(/thinking_budget must be a whole number/);
    expect(() => createProvider(`${MODEL}?thinking_level=max`)).toThrow(/thinking_level must be one of minimal, low, medium, high/);
    expect(() => createProvider(`${MODEL}?thinking_budget=128&thinking_level=low`)).toThrow(/not both/);
  });

  it('refuses to start without a key; takes GOOGLE_API_KEY over GEMINI_API_KEY, as the SDK does', async () => {
    await expect(googleProvider(MODEL, {}).preflight()).rejects.toThrow(
      `${MODEL}: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment or in a .env file in the working directory`,
    );
    await expect(googleProvider(MODEL, { GOOGLE_API_KEY: KEY }).preflight()).resolves.toBeUndefined();
    const { provider, requests } = await against(() => ({ json: geminiResponse([{ text: 'DECISION: PASS' }]) }), {
      env: { GOOGLE_API_KEY: `${KEY}-google` },
    });
    await provider.generate(requestFor('R0'));
    expect(requests[0]?.headers['x-goog-api-key']).toBe(`${KEY}-google`);
  });
});

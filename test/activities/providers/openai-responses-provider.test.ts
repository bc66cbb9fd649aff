import { afterEach, describe, expect, it } from 'vitest';
import { openAiResponsesProvider } from '../../../activities/providers/openai-responses-provider.js';
import type { GenerateRequest } from '../../../activities/providers/provider.js';
import { createProvider } from '../../../activities/providers/registry.js';
import { conversation, type Exchange } from '../../../core/chat/conversation.js';
import type { ModelReply } from '../../../core/chat/messages.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { loopToolSpecs } from '../../../core/scripts/loop-tools.js';
import { startLoopback, type RecordedRequest, type Scripted } from './loopback.js';
import { requestFor, secondTurn } from './request.js';
import { functionCallItem, openAiError, outputMessage, reasoningItem, responsesResponse } from './wire.js';

const KEY = 'sk-responses-test-key-never-logged';
let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

async function against(
  script: (index: number, request: RecordedRequest) => Scripted,
  options: { effort?: string | null; timeoutMs?: number } = {},
) {
  const loopback = await startLoopback((request, index) => script(index, request));
  close = loopback.close;
  const provider = openAiResponsesProvider({
    model: 'openai-responses/gpt-5.4-mini-2026-03-17',
    apiModel: 'gpt-5.4-mini-2026-03-17',
    apiKey: KEY,
    baseURL: `${loopback.url}/v1`,
    reasoningEffort: options.effort === undefined ? 'medium' : options.effort,
    requestTimeoutMs: options.timeoutMs ?? 5000,
  });
  return { provider, requests: loopback.requests };
}

/** An item as it must come back with `store: false`: whole, but without the id that names nothing stored. */
const withoutId = (item: object) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'id'));

describe('OpenAI Responses adapter (real SDK, loopback server)', () => {
  it('a text rung turn: reasoning on, nothing stored, encrypted reasoning asked for, the system prompt as instructions, no tools', async () => {
    const { provider, requests } = await against(() => ({
      json: responsesResponse([reasoningItem('rs_1', 'enc-1'), outputMessage('msg_1', 'Seen before.\nDECISION: KEEP')]),
    }));
    const reply = await provider.generate({ ...requestFor('R0'), maxOutputTokens: 4000 });
    const [request] = requests;
    expect(request?.path).toBe('/v1/responses');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['x-stainless-retry-count']).toBe('0');
    expect(request?.body).toEqual({
      model: 'gpt-5.4-mini-2026-03-17',
      instructions: 'You will be shown 60 numeric problems.',
      input: [{ role: 'user', content: 'Problem 1 of 60: ...' }],
      max_output_tokens: 4000,
      reasoning: { effort: 'medium' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(reply.text).toBe('Seen before.\nDECISION: KEEP');
    expect(parseReply('R0', reply)).toMatchObject({ resolved: true, action: 'commit' });
    expect(reply).toMatchObject({ stopReason: 'end', responseModel: 'gpt-5.4-mini-2026-03-17', toolCalls: [] });
  });

  it('a tool rung turn: function tools with tool_choice, the conversation as input items, a function call read as the decision', async () => {
    const { provider, requests } = await against(() => ({
      json: responsesResponse([reasoningItem('rs_2', 'enc-2'), functionCallItem('fc_2', 'call_2', 'skip_solver', '{}')]),
    }));
    const reply = await provider.generate(requestFor('R1', secondTurn));
    expect(parseReply('R1', reply)).toMatchObject({ resolved: true, action: 'pass' });
    expect(reply).toMatchObject({ stopReason: 'tool-use', toolCalls: [{ id: 'call_2', name: 'skip_solver', arguments: '{}' }] });
    expect(requests[0]?.body).toMatchObject({
      reasoning: { effort: 'medium' },
      tool_choice: 'auto',
      tools: [
        { type: 'function', name: 'claim_solver', strict: false, parameters: { type: 'object' } },
        { type: 'function', name: 'skip_solver', strict: false },
      ],
      input: [
        { role: 'user', content: 'Problem 1 of 60: first' },
        { role: 'assistant', content: 'I will claim.' },
        { type: 'function_call', call_id: 'call_1', name: 'claim_solver', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Claimed.' },
        { role: 'user', content: 'Problem 2 of 60: second' },
      ],
    });
    expect(requests[0]?.body).not.toHaveProperty('temperature');

    await provider.generate({ ...requestFor('probe'), toolChoice: 'required', temperature: 0 });
    expect(requests[1]?.body).toMatchObject({ tool_choice: 'required', temperature: 0 });
  });

  it('an R3 agent-loop exchange: every earlier output item comes back as received (encrypted reasoning included, ids left out), with function_call_output items', async () => {
    const issued = [
      [
        reasoningItem('rs_a', 'enc-a'),
        functionCallItem('fc_a', 'call_a', 'write_script', '{"name":"solver","code":"function solve(i) { return i.a + i.b; }"}'),
      ],
      [
        reasoningItem('rs_b', 'enc-b'),
        outputMessage('msg_b', 'Running it.'),
        functionCallItem('fc_b', 'call_b', 'run_script', '{"name":"solver","inputs":{"a":2,"b":3}}'),
      ],
      [reasoningItem('rs_c', 'enc-c'), functionCallItem('fc_c', 'call_c', 'submit_answer', '{"value":"5"}')],
    ];
    const { provider, requests } = await against((index, request) => {
      const input = (request.body?.input ?? []) as { id?: string; type?: string }[];
      // As the API does with store: false, an item id names nothing it can find.
      const named = input.find((item) => item.id !== undefined);
      if (named) return { status: 404, json: openAiError(`Item with id '${named.id}' not found.`, 'invalid_request_error') };
      return { json: responsesResponse(issued[index] ?? [], { output_tokens_details: { reasoning_tokens: 30 } }) };
    });
    const loop = (messages: GenerateRequest['messages']): GenerateRequest => ({
      ...requestFor('R3', messages),
      tools: loopToolSpecs(),
      maxOutputTokens: 4096,
    });
    const kept = (reply: ModelReply): ModelReply =>
      JSON.parse(JSON.stringify({ text: reply.text, toolCalls: reply.toolCalls, replay: reply.replay }));
    const exchanges: Exchange[] = [];
    const first = kept(await provider.generate(loop(conversation([], 'Problem 1 of 60:\nAdd a and b.'))));
    exchanges.push({
      user: 'Problem 1 of 60:\nAdd a and b.',
      reply: first,
      toolResults: [{ toolCallId: 'call_a', content: '{"ok":true}' }],
    });
    const second = kept(await provider.generate(loop(conversation(exchanges, undefined))));
    expect(second.text).toBe('Running it.');
    exchanges.push({ reply: second, toolResults: [{ toolCallId: 'call_b', content: '{"ok":true,"returned":5}' }] });
    const third = await provider.generate(loop(conversation(exchanges, undefined)));

    expect(third.toolCalls).toEqual([{ id: 'call_c', name: 'submit_answer', arguments: '{"value":"5"}' }]);
    expect(third.usage.reasoningTokens).toBe(30);
    expect(requests[2]?.body?.input).toEqual([
      { role: 'user', content: 'Problem 1 of 60:\nAdd a and b.' },
      ...issued[0]!.map(withoutId),
      { type: 'function_call_output', call_id: 'call_a', output: '{"ok":true}' },
      ...issued[1]!.map(withoutId),
      { type: 'function_call_output', call_id: 'call_b', output: '{"ok":true,"returned":5}' },
    ]);
  });

  it('leaves out a reply cut off while it reasoned: a reasoning item with nothing after it is not sent back', async () => {
    const { provider, requests } = await against((index) => ({
      json:
        index === 0
          ? responsesResponse([reasoningItem('rs_cut', 'enc-cut')], { output_tokens: 1500 }, undefined, 'max_output_tokens')
          : responsesResponse([outputMessage('msg_2', 'DECISION: PASS')]),
    }));
    const cut = await provider.generate(requestFor('R0'));
    expect(cut).toMatchObject({ text: '', toolCalls: [], stopReason: 'length' });
    const exchanges: Exchange[] = [{ user: 'Problem 1 of 60: ...', reply: cut, toolResults: [] }];
    await provider.generate(requestFor('R0', conversation(exchanges, 'Problem 2 of 60: ...')));
    expect(requests[1]?.body?.input).toEqual([
      { role: 'user', content: 'Problem 1 of 60: ...' },
      { role: 'user', content: 'Problem 2 of 60: ...' },
    ]);
  });

  it('reports usage by component (cached input, reasoning) and why each reply ended', async () => {
    const replies = [
      responsesResponse([outputMessage('m', 'DECISION: PASS')], {
        input_tokens: 2048,
        input_tokens_details: { cached_tokens: 1920 },
        output_tokens: 300,
        output_tokens_details: { reasoning_tokens: 250 },
        total_tokens: 2348,
      }),
      responsesResponse([functionCallItem('f', 'c', 'keep', '{}')]),
      responsesResponse([reasoningItem('r', 'e')], {}, undefined, 'max_output_tokens'),
      responsesResponse([], {}, undefined, 'content_filter'),
      { ...responsesResponse([]), status: 'failed', error: { code: 'server_error', message: 'failed' } },
    ];
    const { provider } = await against((i) => ({ json: replies[i] }));
    const got = [];
    for (let i = 0; i < replies.length; i++) got.push(await provider.generate(requestFor('probe')));
    expect(got[0]?.usage).toEqual({ inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 300, reasoningTokens: 250 });
    expect(got.map((reply) => reply.stopReason)).toEqual(['end', 'tool-use', 'length', 'content-filter', 'other']);
  });

  it('classifies 429 with retry-after and an overloaded 503 as throttled, 500, 503, dropped connections and timeouts as transport, 400 and 401 as permanent; one request each', async () => {
    const script: Scripted[] = [
      { status: 429, headers: { 'retry-after-ms': '2500' }, json: openAiError('Rate limit reached', 'requests', 'rate_limit_exceeded') },
      { status: 500, json: openAiError('server error', 'server_error') },
      { status: 503, json: openAiError('overloaded', 'server_error') },
      'drop',
      { hangMs: 2000 },
      { status: 400, json: openAiError('Unsupported parameter: temperature', 'invalid_request_error') },
      { status: 401, json: openAiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key') },
    ];
    const { provider, requests } = await against((i) => script[i] as Scripted, { timeoutMs: 300 });
    const classes = [];
    for (let i = 0; i < script.length; i++)
      classes.push(provider.classify(await provider.generate(requestFor('R0')).catch((e: unknown) => e)));
    expect(classes).toEqual([
      { errorClass: 'transport', retryAfterMs: 2500, throttled: '429' },
      { errorClass: 'transport' },
      { errorClass: 'transport', throttled: '503 overloaded' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'permanent' },
      { errorClass: 'permanent' },
    ]);
    expect(requests).toHaveLength(script.length);
  });

  it('reads reasoning_effort from the model id (medium unless set, default leaves it out); refuses a missing key and other options', async () => {
    const { provider, requests } = await against(() => ({ json: responsesResponse([outputMessage('m', 'DECISION: PASS')]) }), {
      effort: null,
    });
    await provider.generate(requestFor('R0'));
    expect(requests[0]?.body).not.toHaveProperty('reasoning');

    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await expect(createProvider('openai-responses/gpt-5.4-mini').preflight()).rejects.toThrow(
        'openai-responses/gpt-5.4-mini: set OPENAI_API_KEY in the environment or in a .env file in the working directory',
      );
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
    expect(() => createProvider('openai-responses/gpt-5.4-mini?temperature=0')).toThrow(/the only option is reasoning_effort/);
    expect(createProvider('openai-responses/gpt-5.4-mini?reasoning_effort=high').apiModel).toBe('gpt-5.4-mini');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { openAiChatProvider } from '../../../activities/providers/openai-chat-provider.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { startLoopback, type Scripted } from './loopback.js';
import { requestFor, secondTurn } from './request.js';
import { chatCompletion, functionCall, openAiError } from './wire.js';

const KEY = 'sk-openai-test-key-never-logged';
let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

async function against(script: (index: number) => Scripted, options: { local?: boolean; timeoutMs?: number } = {}) {
  const loopback = await startLoopback((_, index) => script(index));
  close = loopback.close;
  const local = options.local ?? false;
  const provider = openAiChatProvider({
    model: local ? `openai-compatible/qwen@${loopback.url}/v1` : 'openai/gpt-5.4-mini-2026-03-17',
    apiModel: local ? 'qwen' : 'gpt-5.4-mini-2026-03-17',
    apiKey: local ? undefined : KEY,
    baseURL: `${loopback.url}/v1`,
    local,
    reasoningEffort: local ? null : 'none',
    requestTimeoutMs: options.timeoutMs ?? 5000,
  });
  return { provider, requests: loopback.requests };
}

describe('OpenAI Chat Completions adapter (real SDK, loopback server)', () => {
  it("sends the paper's settings: reasoning_effort none, max_completion_tokens, tools with tool_choice auto, the conversation as messages", async () => {
    const { provider, requests } = await against(() => ({
      json: chatCompletion({ tool_calls: [functionCall('c2', 'skip_solver', '{}')] }),
    }));
    await provider.generate(requestFor('R1', secondTurn));
    const [request] = requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body).toMatchObject({
      model: 'gpt-5.4-mini-2026-03-17',
      reasoning_effort: 'none',
      max_completion_tokens: 1500,
      tool_choice: 'auto',
      tools: [
        { type: 'function', function: { name: 'claim_solver', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'skip_solver' } },
      ],
      messages: [
        { role: 'system', content: 'You will be shown 60 numeric problems.' },
        { role: 'user', content: 'Problem 1 of 60: first' },
        {
          role: 'assistant',
          content: 'I will claim.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'claim_solver', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Claimed.' },
        { role: 'user', content: 'Problem 2 of 60: second' },
      ],
    });
    expect(request?.body).not.toHaveProperty('temperature');
    expect(request?.body).not.toHaveProperty('max_tokens');
  });

  it('reads tool calls (one, several, malformed JSON arguments), empty content and usage with cached tokens', async () => {
    const replies = [
      chatCompletion({ tool_calls: [functionCall('a', 'claim_solver', '{"code": "def solve(inputs): return 0"}')] }),
      chatCompletion({ tool_calls: [functionCall('a', 'claim_solver', '{}'), functionCall('b', 'skip_solver', '{}')] }),
      chatCompletion({ tool_calls: [functionCall('a', 'claim_solver', '{"code": "def solve(')] }),
      chatCompletion({ content: null }),
      chatCompletion(
        { content: 'Too early.\nDECISION: PASS' },
        { prompt_tokens: 2048, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 1920 } },
      ),
    ];
    const { provider } = await against((i) => ({ json: replies[i] }));
    expect(parseReply('R2', await provider.generate(requestFor('R2')))).toMatchObject({ resolved: true, action: 'commit' });
    expect(parseReply('R1', await provider.generate(requestFor('R1')))).toMatchObject({ failure: 'several-decisions' });
    expect(parseReply('R2', await provider.generate(requestFor('R2')))).toMatchObject({ failure: 'malformed-arguments' });
    const empty = await provider.generate(requestFor('R1'));
    expect(empty).toMatchObject({ text: '', toolCalls: [] });
    const text = await provider.generate(requestFor('R0'));
    expect(parseReply('R0', text)).toMatchObject({ resolved: true, action: 'pass' });
    expect(text.usage).toEqual({ inputTokens: 2048, outputTokens: 12, cachedInputTokens: 1920 });
    expect(text.responseModel).toBe('gpt-5.4-mini-2026-03-17');
  });

  it('sends tool_choice required and the temperature when the request sets them, to OpenAI and to local servers', async () => {
    for (const local of [false, true]) {
      const { provider, requests } = await against(() => ({ json: chatCompletion({ tool_calls: [functionCall('c', 'keep', '{}')] }) }), {
        local,
      });
      await provider.generate({ ...requestFor('probe'), toolChoice: 'required', temperature: 0 });
      await provider.generate({ ...requestFor('probe'), temperature: 1.2 });
      expect(requests[0]?.body).toMatchObject({ tool_choice: 'required', temperature: 0 });
      expect(requests[1]?.body).toMatchObject({ tool_choice: 'auto', temperature: 1.2 });
      await close?.();
    }
  });

  it('reports why each reply ended, in the harness terms', async () => {
    const reasons = ['stop', 'tool_calls', 'function_call', 'length', 'content_filter', 'something_new'];
    const { provider } = await against((i) => ({ json: chatCompletion({ content: 'Hmm' }, {}, undefined, reasons[i]) }));
    const stops = [];
    for (let i = 0; i < reasons.length; i++) stops.push((await provider.generate(requestFor('R0'))).stopReason);
    expect(stops).toEqual(['end', 'tool-use', 'tool-use', 'length', 'content-filter', 'other']);
  });

  it('reports usage by component: all prompt tokens, the cached part, output and the reasoning part', async () => {
    const { provider } = await against(() => ({
      json: chatCompletion(
        { content: 'DECISION: PASS' },
        {
          prompt_tokens: 900,
          completion_tokens: 300,
          prompt_tokens_details: { cached_tokens: 640 },
          completion_tokens_details: { reasoning_tokens: 250 },
        },
      ),
    }));
    const { usage } = await provider.generate(requestFor('R0'));
    expect(usage).toEqual({ inputTokens: 900, cachedInputTokens: 640, outputTokens: 300, reasoningTokens: 250 });
  });

  it('reads a tool call a local server left in the text (a <tool_call> block, a fenced JSON object), keeping the text as it is', async () => {
    const tagged = 'I will skip this one.\n<tool_call>\n{"name": "skip_solver", "arguments": {}}\n</tool_call>';
    const fenced = 'Decision:\n```json\n{"name": "claim_solver", "arguments": {}}\n```';
    const unknown = '<tool_call>{"name": "solve_it", "arguments": {}}</tool_call>';
    const texts = [tagged, fenced, unknown, tagged];
    const { provider } = await against((i) => ({ json: chatCompletion({ content: texts[i] }, {}, 'qwen') }), { local: true });
    const fromTag = await provider.generate(requestFor('R1'));
    expect(fromTag.text).toBe(tagged);
    expect(fromTag.toolCalls).toMatchObject([{ name: 'skip_solver' }]);
    expect(parseReply('R1', fromTag)).toMatchObject({ resolved: true, action: 'pass' });
    const fromFence = await provider.generate(requestFor('R1'));
    expect(fromFence.text).toBe(fenced);
    expect(parseReply('R1', fromFence)).toMatchObject({ resolved: true, action: 'commit' });
    // A tool the rung does not offer is not a call; at R0 there are no tools to recover.
    expect((await provider.generate(requestFor('R1'))).toolCalls).toEqual([]);
    expect((await provider.generate(requestFor('R0'))).toolCalls).toEqual([]);
  });

  it("leaves a hosted model's text alone: only local servers get their calls recovered", async () => {
    const tagged = '<tool_call>{"name": "skip_solver", "arguments": {}}</tool_call>';
    const { provider } = await against(() => ({ json: chatCompletion({ content: tagged }) }));
    expect(parseReply('R1', await provider.generate(requestFor('R1')))).toMatchObject({ resolved: false, failure: 'no-decision' });
  });

  it('classifies 429 with retry-after, 408, 409, 500, 503, dropped connections and timeouts as transport, 400 and 401 as permanent; 429 and an overloaded 503 as throttled', async () => {
    const { provider } = await against(
      (i) =>
        [
          {
            status: 429,
            headers: { 'retry-after-ms': '2500' },
            json: openAiError('Rate limit reached', 'requests', 'rate_limit_exceeded'),
          },
          { status: 408, json: openAiError('timeout', 'timeout') },
          { status: 409, json: openAiError('conflict', 'conflict') },
          { status: 500, json: openAiError('server error', 'server_error') },
          { status: 503, json: openAiError('The server is overloaded or not ready yet.', 'server_error') },
          { status: 503, json: openAiError('Slow Down', 'server_error') },
          { status: 503, json: openAiError('upstream connect error', 'server_error') },
          'drop' as const,
          { hangMs: 2000 },
          {
            status: 400,
            json: openAiError("This model's maximum context length is 128000 tokens", 'invalid_request_error', 'context_length_exceeded'),
          },
          { status: 401, json: openAiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key') },
        ][i] as Scripted,
      { timeoutMs: 300 },
    );
    const classes = [];
    for (let i = 0; i < 11; i++) classes.push(provider.classify(await provider.generate(requestFor('R0')).catch((e: unknown) => e)));
    expect(classes).toEqual([
      { errorClass: 'transport', retryAfterMs: 2500, throttled: '429' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'transport', throttled: '503 overloaded' },
      { errorClass: 'transport', throttled: '503 overloaded' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
      { errorClass: 'permanent' },
      { errorClass: 'permanent' },
    ]);
  });

  it('talks to OpenAI-compatible servers with max_tokens and no reasoning_effort, and checks the server is there', async () => {
    const { provider, requests } = await against(
      (i) =>
        i === 0
          ? { json: { object: 'list', data: [{ id: 'qwen', object: 'model' }] } }
          : { json: chatCompletion({ content: 'DECISION: KEEP' }, {}, 'qwen') },
      {
        local: true,
      },
    );
    await provider.preflight();
    await provider.generate(requestFor('R0'));
    expect(requests[0]?.path).toBe('/v1/models');
    expect(requests[1]?.body).toMatchObject({ model: 'qwen', max_tokens: 1500 });
    expect(requests[1]?.body).not.toHaveProperty('reasoning_effort');
    expect(requests[1]?.body).not.toHaveProperty('max_completion_tokens');
    expect(provider.local).toBe(true);
  });

  it('refuses to start without OPENAI_API_KEY, or with an unreachable base URL', async () => {
    const hosted = openAiChatProvider({
      model: 'openai/gpt-x',
      apiModel: 'gpt-x',
      apiKey: undefined,
      baseURL: undefined,
      local: false,
      reasoningEffort: 'none',
    });
    await expect(hosted.preflight()).rejects.toThrow(/set OPENAI_API_KEY/);
    const gone = openAiChatProvider({
      model: 'openai-compatible/q@http://127.0.0.1:1/v1',
      apiModel: 'q',
      apiKey: undefined,
      baseURL: 'http://127.0.0.1:1/v1',
      local: true,
      reasoningEffort: null,
    });
    await expect(gone.preflight()).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:1\/v1/);
  });
});

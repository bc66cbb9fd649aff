import { afterEach, describe, expect, it } from 'vitest';
import { anthropicProvider } from '../../../activities/providers/anthropic-provider.js';
import { costOf } from '../../../activities/providers/prices.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { startLoopback, type Scripted } from './loopback.js';
import { requestFor, secondTurn } from './request.js';
import { anthropicError, anthropicMessage } from './wire.js';

const MODEL = 'anthropic/claude-haiku-4-5-20251001';
const KEY = 'sk-ant-test-key-never-logged';
let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

async function against(script: (index: number) => Scripted, timeoutMs = 5000) {
  const loopback = await startLoopback((_, index) => script(index));
  close = loopback.close;
  const provider = anthropicProvider(MODEL, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: loopback.url }, timeoutMs);
  return { provider, requests: loopback.requests };
}

describe('Anthropic Messages adapter (real SDK, loopback server)', () => {
  it('sends the paper settings: tools with tool_choice auto, no temperature, cache breakpoints on the system prompt and the newest turn', async () => {
    const { provider, requests } = await against(() => ({
      json: anthropicMessage([{ type: 'tool_use', id: 'toolu_2', name: 'skip_solver', input: {} }]),
    }));
    await provider.generate(requestFor('R1', secondTurn));
    const [request] = requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['x-stainless-retry-count']).toBe('0');
    expect(request?.body).toMatchObject({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 1500,
      tool_choice: { type: 'auto' },
      system: [{ type: 'text', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'claim_solver', input_schema: { type: 'object' } }, { name: 'skip_solver' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Problem 1 of 60: first' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'I will claim.' },
            { type: 'tool_use', id: 'call_1', name: 'claim_solver', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'Claimed.' },
            { type: 'text', text: 'Problem 2 of 60: second', cache_control: { type: 'ephemeral' } },
          ],
        },
      ],
    });
    expect(request?.body).not.toHaveProperty('temperature');
  });

  it('reads text, one or several tool calls, an empty reply, and cache-aware usage', async () => {
    const replies = [
      anthropicMessage([{ type: 'text', text: 'Red again.\nDECISION: KEEP' }]),
      anthropicMessage([{ type: 'tool_use', id: 'a', name: 'claim_solver', input: {} }]),
      anthropicMessage([
        { type: 'tool_use', id: 'a', name: 'claim_solver', input: {} },
        { type: 'tool_use', id: 'b', name: 'skip_solver', input: {} },
      ]),
      anthropicMessage([]),
      anthropicMessage([{ type: 'text', text: 'DECISION: PASS' }], {
        input_tokens: 40,
        cache_read_input_tokens: 3000,
        cache_creation_input_tokens: 200,
        output_tokens: 30,
      }),
    ];
    const { provider } = await against((i) => ({ json: replies[i] }));
    expect(parseReply('R0', await provider.generate(requestFor('R0')))).toMatchObject({ resolved: true, action: 'commit' });
    expect(parseReply('R1', await provider.generate(requestFor('R1')))).toMatchObject({ resolved: true, action: 'commit' });
    expect(parseReply('R1', await provider.generate(requestFor('R1')))).toMatchObject({ failure: 'several-decisions' });
    expect(parseReply('R1', await provider.generate(requestFor('R1')))).toMatchObject({ failure: 'no-decision' });
    const cached = await provider.generate(requestFor('R0'));
    expect(cached.usage).toEqual({ inputTokens: 3240, outputTokens: 30, cachedInputTokens: 3000, cacheWriteTokens: 200 });
    expect(cached.responseModel).toBe('claude-haiku-4-5-20251001');
    // 40 fresh + 3000 read + 200 written + 30 out at $1 / $0.10 / $1.25 / $5 per million.
    expect(costOf(cached.usage, { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 })).toBeCloseTo((40 + 300 + 250 + 150) / 1e6, 12);
  });

  it('sends tool_choice any when a call is required, and the temperature when one is set', async () => {
    const { provider, requests } = await against(() => ({
      json: anthropicMessage([{ type: 'tool_use', id: 'toolu_3', name: 'skip_solver', input: {} }], {}, 'tool_use'),
    }));
    await provider.generate({ ...requestFor('R1'), toolChoice: 'required', temperature: 0 });
    await provider.generate({ ...requestFor('R1'), temperature: 0.4 });
    expect(requests[0]?.body).toMatchObject({ tool_choice: { type: 'any' }, temperature: 0 });
    expect(requests[1]?.body).toMatchObject({ tool_choice: { type: 'auto' }, temperature: 0.4 });
  });

  it('reports why each reply ended, in the harness terms', async () => {
    const reasons = ['end_turn', 'stop_sequence', 'tool_use', 'max_tokens', 'refusal', 'pause_turn'];
    const { provider } = await against((i) => ({
      json: anthropicMessage([{ type: 'text', text: 'Thinking about the draw' }], {}, reasons[i] as string),
    }));
    const stops = [];
    for (let i = 0; i < reasons.length; i++) stops.push((await provider.generate(requestFor('R0'))).stopReason);
    expect(stops).toEqual(['end', 'end', 'tool-use', 'length', 'content-filter', 'other']);
  });

  it('counts every input token once: uncached input, cache reads and cache writes, each also kept apart', async () => {
    const { provider } = await against(() => ({
      json: anthropicMessage([{ type: 'text', text: 'DECISION: KEEP' }], {
        input_tokens: 7,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 50,
        output_tokens: 9,
      }),
    }));
    const { usage } = await provider.generate(requestFor('R0'));
    expect(usage.inputTokens).toBe(7 + 1000 + 50);
    expect(usage.cachedInputTokens).toBe(1000);
    expect(usage.cacheWriteTokens).toBe(50);
    expect(usage.outputTokens).toBe(9);
    expect(usage.reasoningTokens).toBeUndefined();
  });

  it('classifies 429 (with retry-after), 500, 529, dropped connections and timeouts as transport errors, 429 and 529 as throttled', async () => {
    const { provider } = await against(
      (i) =>
        [
          { status: 429, headers: { 'retry-after': '7' }, json: anthropicError('rate_limit_error', 'slow down') },
          { status: 500, json: anthropicError('api_error', 'oops') },
          { status: 529, json: anthropicError('overloaded_error', 'busy') },
          'drop' as const,
          { hangMs: 2000 },
        ][i] as Scripted,
      300,
    );
    const errors = [];
    for (let i = 0; i < 5; i++) errors.push(await provider.generate(requestFor('R0')).catch((e: unknown) => e));
    expect(errors.map((e) => provider.classify(e))).toEqual([
      { errorClass: 'transport', retryAfterMs: 7000, throttled: '429' },
      { errorClass: 'transport' },
      { errorClass: 'transport', throttled: '529' },
      { errorClass: 'transport' },
      { errorClass: 'transport' },
    ]);
  });

  it('classifies bad requests, context too long and authentication failures as permanent', async () => {
    const { provider } = await against(
      (i) =>
        [
          { status: 400, json: anthropicError('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum') },
          { status: 401, json: anthropicError('authentication_error', 'invalid x-api-key') },
          { status: 404, json: anthropicError('not_found_error', 'model: claude-none') },
        ][i] as Scripted,
    );
    for (let i = 0; i < 3; i++) {
      const error = await provider.generate(requestFor('R0')).catch((e: unknown) => e);
      expect(provider.classify(error)).toEqual({ errorClass: 'permanent' });
      expect(String(error)).not.toContain(KEY);
    }
  });

  it('refuses to start without ANTHROPIC_API_KEY', async () => {
    await expect(anthropicProvider(MODEL, {}).preflight()).rejects.toThrow(/set ANTHROPIC_API_KEY/);
  });
});

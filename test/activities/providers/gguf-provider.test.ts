import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../core/chat/messages.js';
import { chatHistory, ggufProvider, llamaStopReason } from '../../../activities/providers/gguf-provider.js';
import { SMALL_MODEL_FILE, TEST_GROUPS } from '../../../infra/test-groups.js';
import { requestFor, secondTurn } from './request.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-gguf-'));

describe('the in-process GGUF adapter', () => {
  it('refuses a missing file, a file that is not GGUF, and unknown options before any session starts', async () => {
    await expect(ggufProvider(`gguf/${join(dir, 'absent.gguf')}`).preflight()).rejects.toThrow(/no model file at/);
    const notGguf = join(dir, 'model.gguf');
    writeFileSync(notGguf, 'PK\u0003\u0004 a zip, not a model');
    await expect(ggufProvider(`gguf/${notGguf}`).preflight()).rejects.toThrow(/is not a GGUF file/);
    const gguf = join(dir, 'tiny.gguf');
    writeFileSync(gguf, 'GGUF....');
    await expect(ggufProvider(`gguf/${gguf}?temperature=0`).preflight()).rejects.toThrow(/options are context, parallel and threads/);
    await expect(ggufProvider(`gguf/${gguf}?context=8`).preflight()).rejects.toThrow(/context must be at least 256/);
    await expect(ggufProvider(`gguf/${gguf}?threads=0`).preflight()).rejects.toThrow(/threads must be a whole number from 1/);
    await expect(ggufProvider(`gguf/${gguf}?context=4096&parallel=2&threads=1`).preflight()).resolves.toBeUndefined();
  });

  it("maps node-llama-cpp's stop reasons to the harness's", () => {
    expect(llamaStopReason('maxTokens')).toBe('length');
    expect(llamaStopReason('functionCalls')).toBe('tool-use');
    expect(['eogToken', 'stopGenerationTrigger', 'customStopTrigger'].map((r) => llamaStopReason(r as 'eogToken'))).toEqual([
      'end',
      'end',
      'end',
    ]);
    expect(llamaStopReason('abort')).toBe('other');
  });

  it('turns the conversation into chat history, each tool result riding on its call', () => {
    expect(chatHistory('system', secondTurn)).toEqual([
      { type: 'system', text: 'system' },
      { type: 'user', text: 'Problem 1 of 60: first' },
      { type: 'model', response: ['I will claim.', { type: 'functionCall', name: 'claim_solver', params: {}, result: 'Claimed.' }] },
      { type: 'user', text: 'Problem 2 of 60: second' },
    ]);
  });
});

/**
 * Fetched by `npm run fetch-model`; these tests are skipped where it is absent.
 * One llama.cpp thread: the suite runs other files beside this one on two
 * cores, and llama.cpp's threads spin while a core they wait on is busy.
 */
const model = `gguf/${SMALL_MODEL_FILE}?threads=1`;

describe.skipIf(!TEST_GROUPS.smallModel.present)('the in-process GGUF adapter on a real model (SmolLM2-135M)', () => {
  const urn: ChatMessage[] = [
    { role: 'user', content: 'Draw 1 of 60: a red ball. You may keep 3. Reply with DECISION: KEEP or DECISION: PASS.' },
  ];

  it("gives each conversation the paper's 8,192-token context unless the model id names another", async () => {
    const byDefault = ggufProvider(model);
    const tooLong = { ...requestFor('R0', urn), maxOutputTokens: 9000 };
    await expect(byDefault.generate(tooLong)).rejects.toThrow(/exceed the 8192-token context/);
    const small = ggufProvider(`${model}&context=1024`);
    await expect(small.generate({ ...tooLong, maxOutputTokens: 1000, conversationKey: 'small' })).rejects.toThrow(
      /exceed the 1024-token context/,
    );
  });

  it('reports a reply stopped by the output limit as a length stop, and its usage', async () => {
    const provider = ggufProvider(model);
    const reply = await provider.generate({ ...requestFor('R0', urn), maxOutputTokens: 3, temperature: 0, conversationKey: 'cut' });
    expect(reply.stopReason).toBe('length');
    expect(reply.usage.outputTokens).toBeLessThanOrEqual(3);
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
    expect(reply.usageEstimated).toBe(false);
  });

  it('samples greedily at temperature 0, whatever the seed; a tool rung offers the tools whether or not a call is required', async () => {
    const provider = ggufProvider(model);
    const at = (sampleSeed: number, conversationKey: string) =>
      provider.generate({ ...requestFor('R0', urn), maxOutputTokens: 24, temperature: 0, sampleSeed, conversationKey });
    const [a, b] = [await at(1, 'greedy-a'), await at(987654, 'greedy-b')];
    expect(b.text).toBe(a.text);
    expect(['end', 'length']).toContain(a.stopReason);
    for (const toolChoice of ['auto', 'required'] as const) {
      const reply = await provider.generate({
        ...requestFor('R1'),
        toolChoice,
        maxOutputTokens: 48,
        temperature: 0,
        conversationKey: 'tools',
      });
      expect(['end', 'length', 'tool-use']).toContain(reply.stopReason);
      expect(reply.stopReason === 'tool-use').toBe(reply.toolCalls.length > 0);
    }
  });
});

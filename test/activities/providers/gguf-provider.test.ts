import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatHistory, ggufProvider } from '../../../activities/providers/gguf-provider.js';
import { secondTurn } from './request.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-gguf-'));

describe('the in-process GGUF adapter', () => {
  it('refuses a missing file, a file that is not GGUF, and unknown options before any session starts', async () => {
    await expect(ggufProvider(`gguf/${join(dir, 'absent.gguf')}`).preflight()).rejects.toThrow(/no model file at/);
    const notGguf = join(dir, 'model.gguf');
    writeFileSync(notGguf, 'PK\u0003\u0004 a zip, not a model');
    await expect(ggufProvider(`gguf/${notGguf}`).preflight()).rejects.toThrow(/is not a GGUF file/);
    const gguf = join(dir, 'tiny.gguf');
    writeFileSync(gguf, 'GGUF....');
    await expect(ggufProvider(`gguf/${gguf}?temperature=0`).preflight()).rejects.toThrow(/options are context and parallel/);
    await expect(ggufProvider(`gguf/${gguf}?context=8`).preflight()).rejects.toThrow(/context must be at least 256/);
    await expect(ggufProvider(`gguf/${gguf}?context=4096&parallel=2`).preflight()).resolves.toBeUndefined();
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

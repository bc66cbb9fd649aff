import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonIfExists, readJsonLines, writeJsonAtomic } from '../../run-store/json-files.js';
import { readTranscriptFile } from '../../run-store/fs-run-store.js';

const dir = () => mkdtempSync(join(tmpdir(), 'allocbench-transcript-'));
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 };
const attempt = (t: number, n: number, outcome = 'ok') => ({
  type: 'attempt',
  at: 'x',
  t,
  attempt: n,
  activityAttempt: n,
  latencyMs: 1,
  outcome,
  usage,
  usageEstimated: false,
});
const turn = (t: number, action: string) => ({
  type: 'turn',
  at: 'x',
  t,
  user: `u${t}`,
  reply: { text: '', toolCalls: [] },
  toolResults: [],
  decision: { t, classId: 0, occurrence: 1, action, resolved: true },
  usage,
  responseModel: 'm',
});

describe('atomic JSON files', () => {
  it('survive many concurrent writers of the same file', async () => {
    const path = join(dir(), 'nested', 'stream.json');
    await Promise.all(Array.from({ length: 50 }, (_, i) => writeJsonAtomic(path, { writer: i })));
    expect(await readJsonIfExists<{ writer: number }>(path)).toMatchObject({ writer: expect.any(Number) });
  });
});

describe('transcripts', () => {
  it('skip a final line torn by a crash, and only that', async () => {
    const path = join(dir(), 't.jsonl');
    writeFileSync(path, `${JSON.stringify(attempt(1, 1))}\n{"type":"tur`);
    expect(await readJsonLines(path)).toHaveLength(1);
    writeFileSync(path, `{"type":"tur\n${JSON.stringify(attempt(1, 1))}\n`);
    await expect(readJsonLines(path)).rejects.toThrow(/line 1 is not JSON/);
  });

  it('keep the first record of a turn, sum tokens over attempts, and count attempts since the last resume', async () => {
    const path = join(dir(), 't.jsonl');
    for (const record of [
      attempt(1, 1, 'transport-error'),
      attempt(1, 2),
      turn(1, 'pass'),
      turn(1, 'commit'),
      { type: 'end', at: 'x', termination: 'transport-exhausted' },
      { type: 'resume', at: 'x', after: 'transport-exhausted' },
      attempt(1, 1),
    ]) {
      appendFileSync(path, `${JSON.stringify(record)}\n`);
    }
    const transcript = await readTranscriptFile(path);
    expect(transcript.turns.map((t) => t.decision.action)).toEqual(['pass']);
    expect(transcript.tokensUsed).toBe(3 * 15);
    expect(transcript.attemptsSinceResume(1)).toHaveLength(1);
    expect(transcript.ended).toBeUndefined();
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import type { AttemptRecord } from '../../activities/run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/**
 * A local OpenAI-compatible server whose model emits an empty reply (no tool
 * call) on its first `empties` samples of every turn, then skips.
 */
let empties = 2;
/** Answer the next chat request with a 429 asking for this many seconds' wait. */
let rateLimitSeconds = 0;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
const samplesPerTurn = new Map<string, number>();

function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'qwen', object: 'model' }] } };
  if (rateLimitSeconds > 0) {
    const wait = rateLimitSeconds;
    rateLimitSeconds = 0;
    return {
      status: 429,
      headers: { 'retry-after': String(wait) },
      json: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    };
  }
  const messages = (request.body?.messages ?? []) as { role: string }[];
  const turn = String(messages.filter((m) => m.role === 'user').length);
  const sample = (samplesPerTurn.get(turn) ?? 0) + 1;
  samplesPerTurn.set(turn, sample);
  return sample <= empties
    ? { json: chatCompletion({ content: '```\n```' }, {}, 'qwen') }
    : { json: chatCompletion({ tool_calls: [functionCall(`call_${turn}`, 'skip_solver', '{}')] }, {}, 'qwen') };
}

beforeAll(async () => {
  loopback = await startLoopback(reply);
});
afterAll(async () => loopback?.close());

const sweep = (name: string, emptyRetries?: number) =>
  parseSweepConfig({
    name,
    models: [`openai-compatible/qwen@${loopback.url}/v1`],
    rungs: ['R1'],
    seeds: [2000],
    stream: { length: 8 },
    ...(emptyRetries !== undefined && { emptyRetries }),
  });

describe('a local OpenAI-compatible server (empty-fence retries, paper F.5)', () => {
  it('samples an empty reply again, keeping every attempt, until a tool call comes', async () => {
    empties = 2;
    samplesPerTurn.clear();
    const config = sweep('two-empties');
    const runDir = join(temporal.dir, 'two-empties');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const transcript = await transcriptOf(runDir, spec!);
    const summary = await summaryOf(runDir, spec!);
    expect(summary.metrics.unresolved).toBe(0);
    for (const turn of transcript.turns) {
      const attempts = transcript.attemptsSinceResume(turn.t);
      expect(attempts.map((a: AttemptRecord) => a.outcome)).toEqual(['empty-reply', 'empty-reply', 'ok']);
      expect(attempts[0]?.reply?.text).toBe('```\n```');
      expect(turn.decision).toMatchObject({ action: 'pass', resolved: true });
    }
    expect(summary.costUsd).toBe(0);
  }, 60_000);

  it("honours a 429's retry-after when it asks for longer than the rerun rule's 1.5 s", async () => {
    empties = 0;
    rateLimitSeconds = 3;
    const config = sweep('rate-limited');
    const runDir = join(temporal.dir, 'rate-limited');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const transcript = await transcriptOf(runDir, spec!);
    const [limited, retried] = transcript.attemptsSinceResume(transcript.turns[0]!.t);
    expect([limited?.outcome, retried?.outcome]).toEqual(['transport-error', 'ok']);
    expect((Date.parse(retried!.at) - Date.parse(limited!.at)) / 1000).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('gives up after the configured number of retries, leaving the turn unresolved', async () => {
    empties = 100;
    samplesPerTurn.clear();
    const config = sweep('always-empty', 4);
    const runDir = join(temporal.dir, 'always-empty');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const transcript = await transcriptOf(runDir, spec!);
    const [first] = transcript.turns;
    expect(transcript.attemptsSinceResume(first!.t).map((a) => a.outcome)).toEqual([
      'empty-reply',
      'empty-reply',
      'empty-reply',
      'empty-reply',
      'ok',
    ]);
    expect(first?.decision).toMatchObject({ resolved: false, failure: 'no-decision' });
  }, 60_000);
});

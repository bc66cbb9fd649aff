import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { anthropicMessage } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();
const KEY = 'sk-ant-e2e-secret-7f3a';
const MODEL = 'anthropic/claude-haiku-4-5-20251001';
const HAIKU = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 };

type Message = { role: string; content: { type: string; text?: string; cache_control?: unknown }[] };

/** A stand-in model behind the real wire format: keeps an item at its second sighting, reports cache reads. */
function playUrn(request: RecordedRequest, reportedModel: string) {
  const messages = (request.body?.messages ?? []) as Message[];
  const draws = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content.map((block) => block.text ?? '').join(' '))
    .map((text) => /Draw \d+ of \d+: an? (\w+)/.exec(text)?.[1] ?? '');
  const current = draws.at(-1);
  const decision = draws.slice(0, -1).includes(current ?? '') ? 'KEEP' : 'PASS';
  const promptChars = JSON.stringify(request.body).length;
  return {
    json: {
      ...anthropicMessage([{ type: 'text', text: `Seen ${current} before? DECISION: ${decision}` }], {
        input_tokens: 20,
        cache_read_input_tokens: Math.max(0, Math.floor(promptChars / 4) - 120),
        cache_creation_input_tokens: 100,
        output_tokens: 12,
      }),
      model: reportedModel,
    },
  };
}

let loopback: Awaited<ReturnType<typeof startLoopback>>;
let reportedModel = 'claude-haiku-4-5-20251001';
/** Answer with a 503 that quotes the key back, as a careless proxy might: retried, so it reaches Temporal's failures. */
let rejectQuotingKey = false;

beforeAll(async () => {
  loopback = await startLoopback((request) =>
    rejectQuotingKey
      ? { status: 503, json: { type: 'error', error: { type: 'api_error', message: `upstream refused key ${KEY}` } } }
      : playUrn(request, reportedModel),
  );
  process.env.ANTHROPIC_API_KEY = KEY;
  process.env.ANTHROPIC_BASE_URL = loopback.url;
});
afterAll(async () => loopback?.close());

const sweep = (name: string, extra: Record<string, unknown> = {}) =>
  parseSweepConfig({ name, models: [MODEL], rungs: ['R0'], seeds: [2000], announceN: [true], prices: { [MODEL]: HAIKU }, ...extra });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : statSync(path).size < 50_000_000 ? [path] : [];
  });
}

/** A message without its cache breakpoint, which moves to the newest turn on every request. */
const strip = (messages: Message[]) =>
  messages.map((m) => ({
    ...m,
    content: m.content.map((block) => Object.fromEntries(Object.entries(block).filter(([key]) => key !== 'cache_control'))),
  }));

describe('a hosted provider through Temporal (Anthropic wire format on loopback)', () => {
  it('sends an append-only conversation, records usage and cost per turn, and keeps the key out of every record', async () => {
    const config = sweep('haiku');
    const runDir = join(temporal.dir, 'haiku');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    if (!spec) throw new Error('empty sweep');
    const summary = await summaryOf(runDir, spec);
    expect(summary).toMatchObject({ termination: 'stream-end', responseModels: ['claude-haiku-4-5-20251001'], modelMismatch: false });
    expect(summary.metrics.unresolved).toBe(0);
    expect(summary.metrics.firstSightRate).toBe(0);
    expect(summary.usage.cachedInputTokens).toBeGreaterThan(0);
    expect(summary.costUsd).toBeGreaterThan(0);

    // Each request extends the previous one: the cache breakpoint moves, nothing else changes.
    const requests = loopback.requests.filter((r) => r.path === '/v1/messages');
    expect(requests.length).toBe(summary.metrics.decisionTurns);
    for (let i = 1; i < requests.length; i++) {
      const [before, after] = [requests[i - 1]?.body, requests[i]?.body];
      expect(after?.system).toEqual(before?.system);
      const previous = strip(before?.messages as Message[]);
      expect(strip(after?.messages as Message[]).slice(0, previous.length)).toEqual(previous);
    }
    // A hosted model samples at the provider's default temperature: none is sent.
    for (const request of requests) expect(request.body).not.toHaveProperty('temperature');

    // Each attempt keeps why the reply ended and every usage component the API reported.
    const attempts = (await transcriptOf(runDir, spec)).records.filter((r) => r.type === 'attempt');
    expect(attempts).toHaveLength(requests.length);
    for (const attempt of attempts) {
      expect(attempt.stopReason).toBe('end');
      expect(attempt.usage.cacheWriteTokens).toBe(100);
      expect(attempt.usage.outputTokens).toBe(12);
      // Input counts the uncached tokens, the cache reads and the cache writes.
      expect(attempt.usage.inputTokens).toBe(20 + attempt.usage.cachedInputTokens + 100);
    }

    for (const file of filesUnder(runDir)) expect(readFileSync(file, 'latin1').includes(KEY), file).toBe(false);
    const connection = await Connection.connect({ address: temporal.server.address });
    try {
      const history = await new Client({ connection, namespace: temporal.server.namespace }).workflow
        .getHandle(`${sweepWorkflowId(config)}/${sessionKey(spec)}`)
        .fetchHistory();
      expect(JSON.stringify(history)).not.toContain(KEY);
    } finally {
      await connection.close();
    }
  });

  it('stops a session at its cost cap, and every session of the run at the run cap', async () => {
    const unit = sweep('unit-cap', { unitCap: 0.001, seeds: [2000, 2001] });
    await sweepOn(temporal.server, unit, join(temporal.dir, 'unit-cap'));
    for (const spec of expandSweep(unit)) {
      const summary = await summaryOf(join(temporal.dir, 'unit-cap'), spec);
      expect(summary.termination).toBe('cost-cap');
      expect(summary.costUsd).toBeGreaterThanOrEqual(0.001);
      expect(summary.metrics.truncated).toBeGreaterThan(0);
    }
    const run = sweep('run-cap', { runCap: 0.002, seeds: [2000, 2001, 2002], window: 1 });
    await sweepOn(temporal.server, run, join(temporal.dir, 'run-cap'));
    const summaries = await Promise.all(expandSweep(run).map((spec) => summaryOf(join(temporal.dir, 'run-cap'), spec)));
    expect(summaries.map((s) => s.termination)).toContain('run-cost-cap');
    const spent = summaries.reduce((sum, s) => sum + s.costUsd, 0);
    expect(spent).toBeGreaterThanOrEqual(0.002);
    expect(spent).toBeLessThan(0.002 + 0.001); // one call past the cap at most
  });

  // In-session, a failed attempt leaves no failure in history (only the call's final outcome); on a provider queue it does.
  it.each(['in-session', 'provider-queue'] as const)(
    'keeps a key that an error message quotes back out of the transcript and of Temporal history (calls %s)',
    async (modelCalls) => {
      rejectQuotingKey = true;
      const config = sweep(`rejected-${modelCalls}`, { seeds: [2002], modelCalls });
      const runDir = join(temporal.dir, `rejected-${modelCalls}`);
      await sweepOn(temporal.server, config, runDir);
      rejectQuotingKey = false;
      const [spec] = expandSweep(config);
      expect(await summaryOf(runDir, spec!)).toMatchObject({ termination: 'transport-exhausted', mechanicalFailure: true });
      const transcript = readFileSync(join(runDir, 'sessions', readdirSync(join(runDir, 'sessions'))[0]!, 'transcript.jsonl'), 'utf8');
      expect(transcript).toContain('upstream refused key [redacted]');
      for (const file of filesUnder(runDir)) expect(readFileSync(file, 'latin1').includes(KEY), file).toBe(false);
      const connection = await Connection.connect({ address: temporal.server.address });
      try {
        const history = JSON.stringify(
          await new Client({ connection, namespace: temporal.server.namespace }).workflow
            .getHandle(`${sweepWorkflowId(config)}/${sessionKey(spec!)}`)
            .fetchHistory(),
        );
        // Payloads are base64 in the JSON: read them too.
        const payloads = [...history.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map(([, data]) =>
          Buffer.from(data!, 'base64').toString('latin1'),
        );
        expect(payloads.join('\n')).toContain('transport-exhausted');
        if (modelCalls === 'provider-queue') expect(history).toContain('[redacted]');
        for (const text of [history, ...payloads]) expect(text).not.toContain(KEY);
      } finally {
        await connection.close();
      }
    },
    90_000,
  );

  it('records a response that names another model', async () => {
    reportedModel = 'claude-opus-4-8';
    const config = sweep('identity', { models: [MODEL], seeds: [2001] });
    await sweepOn(temporal.server, config, join(temporal.dir, 'identity'));
    const [spec] = expandSweep(config);
    expect(await summaryOf(join(temporal.dir, 'identity'), spec!)).toMatchObject({
      modelMismatch: true,
      responseModels: ['claude-opus-4-8'],
    });
    reportedModel = 'claude-haiku-4-5-20251001';
  });
});

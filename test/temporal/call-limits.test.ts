import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn } from './harness.js';

/*
 * How many model calls a sweep has at a provider at once: the window's unless
 * `limits.<provider>.concurrency` says less, wherever the calls run. Counted
 * at a loopback OpenAI-compatible server whose replies take 200 ms.
 */

const temporal = serverForThisFile();
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let inFlight = 0;
let mostInFlight = 0;

function slowSkip(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'slow', object: 'model' }] } };
  mostInFlight = Math.max(mostInFlight, ++inFlight);
  setTimeout(() => inFlight--, 200);
  return { json: chatCompletion({ tool_calls: [functionCall('call', 'skip_solver', '{}')] }, {}, 'slow'), afterMs: 200 };
}

beforeAll(async () => {
  loopback = await startLoopback(slowSkip);
});
afterAll(async () => loopback?.close());

describe("a provider's concurrency", () => {
  it.each([
    ['in-session', 2],
    ['provider-queue', 2],
    ['in-session', undefined],
  ] as const)(
    'calls %s, limit %s: never more calls at the server at once than the limit (or the window of 6)',
    async (modelCalls, limit) => {
      const model = `openai-compatible/slow@${loopback.url}/v1`;
      const config = parseSweepConfig({
        name: `limits-${modelCalls}-${limit ?? 'window'}`,
        models: [model],
        rungs: ['R1'],
        seeds: '2000-2005',
        stream: { length: 6 },
        window: 6,
        modelCalls,
        ...(limit && { limits: { 'openai-compatible': { concurrency: limit } } }),
      });
      mostInFlight = 0;
      const runDir = join(temporal.dir, config.name);
      await sweepOn(temporal.server, config, runDir);
      for (const spec of expandSweep(config)) expect((await summaryOf(runDir, spec)).termination).toBe('stream-end');
      if (limit) expect(mostInFlight).toBe(limit);
      else expect(mostInFlight).toBeGreaterThan(2);
      expect(mostInFlight).toBeLessThanOrEqual(6);
    },
    120_000,
  );
});

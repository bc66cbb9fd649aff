import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { providerRate, setProviderRate } from '../../infra/queue-rate.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn } from './harness.js';

/*
 * Item 3 of issue 23 (a): a provider's rate for the whole cluster is set once,
 * from the sweep, on the Temporal server's task queue for the provider — read
 * back here through the server's own API — and the server holds the calls to
 * it. In-session calls have no queue for the server to limit: on a cluster the
 * sweep refuses a rate for them.
 */

const temporal = serverForThisFile();
/** Low enough that the calls without it come well above it even on a loaded machine (7 a second seen beside two busy loops). */
const RATE = 2;
/** When each chat request arrived, in ms. */
const arrivals: number[] = [];
let loopback: Awaited<ReturnType<typeof startLoopback>>;

function quick(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'quick', object: 'model' }] } };
  arrivals.push(Date.now());
  return { json: chatCompletion({ tool_calls: [functionCall('call', 'skip_solver', '{}')] }, {}, 'quick') };
}

beforeAll(async () => {
  loopback = await startLoopback(quick);
});
afterAll(async () => loopback?.close());

const sweep = (name: string, modelCalls: 'in-session' | 'provider-queue', perSecond: number | null = RATE) =>
  parseSweepConfig({
    name,
    models: [`openai-compatible/quick@${loopback.url}/v1`],
    rungs: ['R1'],
    seeds: '2000-2005',
    stream: { length: 6 },
    window: 6,
    modelCalls,
    ...(perSecond && { limits: { 'openai-compatible': { perSecond } } }),
  });

/** Runs the sweep; returns the calls per second the loopback server saw, from the first to the last. */
async function callRate(config: ReturnType<typeof sweep>): Promise<number> {
  arrivals.length = 0;
  const runDir = join(temporal.dir, config.name);
  await sweepOn(temporal.server, config, runDir);
  for (const spec of expandSweep(config)) expect((await summaryOf(runDir, spec)).termination).toBe('stream-end');
  expect(arrivals).toHaveLength(36);
  const rate = arrivals.length / ((arrivals.at(-1)! - arrivals[0]!) / 1000);
  process.stdout.write(`${config.name}: ${arrivals.length} calls at ${rate.toFixed(1)} a second\n`);
  return rate;
}

async function withConnection<T>(use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: temporal.server.address });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

describe("a provider's rate across the cluster", () => {
  it('is set on the server for the provider queue, which holds every call to it', async () => {
    // Unlimited, the same calls come several times as fast.
    expect(await callRate(sweep('unlimited', 'provider-queue', null))).toBeGreaterThan(RATE * 2);
    expect(await withConnection((c) => providerRate(c, temporal.server.namespace, 'openai-compatible'))).toBeUndefined();
    expect(await callRate(sweep('rate-on-queue', 'provider-queue'))).toBeLessThanOrEqual(RATE * 1.5);
    expect(await withConnection((c) => providerRate(c, temporal.server.namespace, 'openai-compatible'))).toBe(RATE);
  });

  it('reads back a rate set outside any sweep, and none where none is set', async () => {
    await withConnection((c) => setProviderRate(c, temporal.server.namespace, 'anthropic', 2.5, 'test'));
    expect(await withConnection((c) => providerRate(c, temporal.server.namespace, 'anthropic'))).toBe(2.5);
    expect(await withConnection((c) => providerRate(c, temporal.server.namespace, 'openai'))).toBeUndefined();
  });

  it('is refused for in-session calls on a cluster, in one line naming the way', async () => {
    const config = sweep('rate-in-session', 'in-session');
    await expect(sweepOn(temporal.server, config, join(temporal.dir, config.name))).rejects.toThrow(
      /^limits\.openai-compatible\.perSecond: a rate across a cluster needs modelCalls: provider-queue/,
    );
  });
});

import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { until } from './processes.js';

const temporal = serverForThisFile();

/**
 * A TCP proxy in front of the Temporal server that slows every chunk down and
 * cuts every connection through it once it has carried an answer for a while,
 * and can go down for a while (every connection refused): the waits and calls
 * in flight fail as they do against an overloaded or restarting server, long
 * enough to outlast the client's own retries. A connection is cut a fixed time
 * after its first answer from the server, not on a clock common to all of
 * them: however slow a loaded machine makes a reconnect, each new connection
 * gets its requests through before it is cut, so the sweep always moves.
 */
async function unsteadyProxy(target: string, options: { delayMs: number; cutAfterMs: number }) {
  const [host, port] = [target.split(':')[0] ?? '127.0.0.1', Number(target.split(':')[1])];
  const sockets = new Set<Socket>();
  let [cuts, refused] = [0, 0];
  let down = false;
  const server = createServer((client) => {
    if (down) {
      refused++;
      return void client.destroy();
    }
    const upstream = createConnection({ host, port });
    let cut: NodeJS.Timeout | undefined;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        clearTimeout(cut);
      });
      socket.on('error', () => undefined);
    }
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => setTimeout(() => to.destroyed || to.write(chunk), options.delayMs));
    relay(client, upstream);
    relay(upstream, client);
    upstream.once('data', () => {
      cut = setTimeout(() => {
        cuts++;
        client.destroy();
      }, options.cutAfterMs);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${proxyPort}`,
    cuts: () => cuts,
    /** Connections refused while down: someone was trying to reach the server. */
    refused: () => refused,
    /** Refuses every connection for this long. */
    outage: (ms: number) => {
      down = true;
      for (const socket of sockets) socket.destroy();
      setTimeout(() => (down = false), ms).unref();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('a sweep against an unsteady server', () => {
  it('waits through cut connections, slow answers and a 30-second outage, and every session finishes', async () => {
    const proxy = await unsteadyProxy(temporal.server.address, { delayMs: 30, cutAfterMs: 1500 });
    try {
      const config = parseSweepConfig({
        name: 'unsteady',
        models: ['policy/commit-at-2?delay=300'],
        rungs: ['R0'],
        seeds: '2000-2007',
        stream: { length: 40 },
        window: 8,
      });
      const runDir = join(temporal.dir, 'unsteady');
      // Down once the sweep is under way (a session has recorded a turn), longer than the client's own retries of its wait last (about 20 s).
      const [first] = expandSweep(config);
      const underWay = until(
        async () => ((await transcriptOf(runDir, first!).catch(() => undefined))?.turns.length ?? 0) > 0,
        120_000,
        'a first turn',
      );
      const sweep = sweepOn({ ...temporal.server, address: proxy.address }, config, runDir);
      await Promise.race([underWay, sweep]);
      const outageEnds = Date.now() + 30_000;
      proxy.outage(30_000);
      await expect(sweep).resolves.toMatchObject({ total: 8, finished: 8, failed: 0, mechanicalFailures: 0 });
      // The sweep was running through the outage, and trying to reach the server during it.
      expect(Date.now()).toBeGreaterThan(outageEnds);
      expect(proxy.refused()).toBeGreaterThan(0);
      expect(proxy.cuts()).toBeGreaterThan(2);
      for (const spec of expandSweep(config)) expect((await summaryOf(runDir, spec)).termination).toBe('stream-end');
    } finally {
      proxy.close();
    }
  });
});

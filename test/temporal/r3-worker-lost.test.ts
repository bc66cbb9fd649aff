import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/** Turn 1 writes a script that spins; later turns answer. */
function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'coder', object: 'model' }] } };
  const turn = ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'user').length;
  const call =
    turn === 1
      ? functionCall('call_1', 'write_script', JSON.stringify({ code: 'function solve() { for (;;) {} }' }))
      : functionCall(`call_${turn}`, 'answer', JSON.stringify({ answer: 7 }));
  return { json: chatCompletion({ tool_calls: [call] }, {}, 'coder') };
}

let loopback: Awaited<ReturnType<typeof startLoopback>>;
beforeAll(async () => {
  loopback = await startLoopback(reply);
});
afterAll(async () => loopback?.close());

/** The sandbox worker processes this test process started. */
function sandboxChildren(): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes('sandbox-process.js')).map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('the sandbox worker process', () => {
  it('is started again when a script takes it down, and the lost run is recorded, not repeated', async () => {
    const config = parseSweepConfig({
      name: 'worker-lost',
      models: [`openai-compatible/coder@${loopback.url}/v1`],
      rungs: ['R3'],
      seeds: [2000],
      stream: { length: 3 },
      r3: { end: 'stream-end', timeoutMs: 60_000 },
      heartbeatSeconds: 2,
    });
    const runDir = join(temporal.dir, 'worker-lost');
    const [spec] = expandSweep(config);
    const done = sweepOn(temporal.server, config, runDir);
    let killed: number | undefined;
    for (let i = 0; i < 600 && killed === undefined; i++) {
      await sleep(100);
      const transcript = await transcriptOf(runDir, spec!).catch(() => undefined);
      if (transcript?.executionsStarted.has(1)) {
        killed = sandboxChildren()[0];
        if (killed) process.kill(killed, 'SIGKILL');
      }
    }
    expect(killed).toBeGreaterThan(0);
    await done;
    const transcript = await transcriptOf(runDir, spec!);
    expect(transcript.executions.get(1)?.outcome).toMatchObject({ ok: false, kind: 'worker-lost' });
    expect(transcript.records.filter((r) => r.type === 'execution-start' && r.t === 1)).toHaveLength(1);
    const summary = await summaryOf(runDir, spec!);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(summary.script?.turns.map((turn) => turn.action)).toEqual(['write', 'answer', 'answer']);
    expect(sandboxChildren()).toEqual([]);
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/** Turn 1 writes the model's script (by model name); later turns answer. */
const SCRIPTS: Readonly<Record<string, string>> = {
  // Busy for 2 s, then a result: long enough to be killed mid-run.
  slow: 'function solve() { const end = Date.now() + 2000; while (Date.now() < end) {} return 7; }',
  spin: 'function solve() { for (;;) {} }',
};

function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) {
    return { json: { object: 'list', data: Object.keys(SCRIPTS).map((id) => ({ id, object: 'model' })) } };
  }
  const model = String(request.body?.model);
  const turn = ((request.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'user').length;
  const call =
    turn === 1
      ? functionCall('call_1', 'write_script', JSON.stringify({ code: SCRIPTS[model] }))
      : functionCall(`call_${turn}`, 'answer', JSON.stringify({ answer: 7 }));
  return { json: chatCompletion({ tool_calls: [call] }, {}, model) };
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

/** A three-item R3 session of `model` whose script turn 1 writes. */
function sessionOf(model: string) {
  const config = parseSweepConfig({
    name: `worker-lost-${model}`,
    models: [`openai-compatible/${model}@${loopback.url}/v1`],
    rungs: ['R3'],
    seeds: [2000],
    stream: { length: 3 },
    r3: { end: 'stream-end', timeoutMs: 60_000 },
    heartbeatSeconds: 2,
  });
  return { config, spec: expandSweep(config)[0] as SessionSpec, runDir: join(temporal.dir, config.name) };
}

/**
 * Runs the sweep and kills the sandbox process each time turn 1's script
 * starts on a process, until `times` kills or its outcome is recorded.
 * Returns the process ids killed.
 */
async function sweepKilling(session: ReturnType<typeof sessionOf>, times: number): Promise<number[]> {
  let finished = false;
  const done = sweepOn(temporal.server, session.config, session.runDir).finally(() => (finished = true));
  const killed: number[] = [];
  while (!finished && killed.length < times) {
    await sleep(100);
    const transcript = await transcriptOf(session.runDir, session.spec).catch(() => undefined);
    if (!transcript || transcript.executions.has(1)) continue;
    const starts = transcript.records.filter((r) => r.type === 'execution-start' && r.t === 1).length;
    const pid = sandboxChildren()[0];
    if (starts > killed.length && pid !== undefined && !killed.includes(pid)) {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    }
  }
  await done;
  return killed;
}

describe('a lost sandbox worker process', () => {
  it('is mechanical: the script killed once is run again on a fresh process and its real outcome recorded, once', async () => {
    const session = sessionOf('slow');
    const killed = await sweepKilling(session, 1);
    expect(killed).toHaveLength(1);
    const transcript = await transcriptOf(session.runDir, session.spec);
    expect(transcript.executions.get(1)?.outcome).toMatchObject({ ok: true, value: 7 });
    expect(transcript.records.filter((r) => r.type === 'execution-start' && r.t === 1)).toHaveLength(2);
    expect(transcript.records.filter((r) => r.type === 'execution' && r.t === 1)).toHaveLength(1);
    const summary = await summaryOf(session.runDir, session.spec);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(summary.script?.turns.map((turn) => turn.action)).toEqual(['write', 'answer', 'answer']);
    expect(sandboxChildren()).toEqual([]);
  });

  it('is charged to a script that takes the process down every time, after two more runs, and the session goes on', async () => {
    const session = sessionOf('spin');
    const killed = await sweepKilling(session, 10);
    expect(new Set(killed).size).toBe(3);
    const transcript = await transcriptOf(session.runDir, session.spec);
    expect(transcript.executions.get(1)?.outcome).toMatchObject({
      ok: false,
      kind: 'worker-lost',
      error: expect.stringMatching(/3 times/),
    });
    expect(transcript.records.filter((r) => r.type === 'execution-start' && r.t === 1)).toHaveLength(3);
    expect(transcript.records.filter((r) => r.type === 'execution' && r.t === 1)).toHaveLength(1);
    const summary = await summaryOf(session.runDir, session.spec);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(summary.script?.turns.map((turn) => turn.action)).toEqual(['write', 'answer', 'answer']);
    expect(sandboxChildren()).toEqual([]);
  });
});

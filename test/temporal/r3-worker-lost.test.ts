import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import { runKey, type Transcript, type TranscriptRecord } from '../../run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { ownServerForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { loopPosition, loopReply } from './loop-model.js';

const temporal = ownServerForThisFile();

/** Problem 1: write the model's script (by model name), run it, submit 7; later problems: submit 7. */
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
  return loopReply(request, model, loopPosition(request).t === 1 ? SCRIPTS[model] : undefined, '7');
}

/** The run_script call of problem 1: the session's second model call (after the write), its only tool call. */
const RUN = { call: 2, index: 0 };
const isRun = (r: TranscriptRecord) => 'call' in r && r.call === RUN.call && 'index' in r && r.index === RUN.index;

/** What each model call did: the same for a disturbed session as for an undisturbed one. */
const PLAYED = [['written'], ['run'], ['submitted'], ['submitted'], ['submitted']];

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

/** A three-problem R3 session of `model`, whose script it writes and runs on problem 1. */
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
 * Runs the sweep and kills the sandbox process each time problem 1's script
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
    if (!transcript || transcript.executions.has(runKey(RUN.call, RUN.index))) continue;
    const starts = transcript.records.filter((r) => r.type === 'execution-start' && isRun(r)).length;
    const pid = sandboxChildren()[0];
    if (starts > killed.length && pid !== undefined && !killed.includes(pid)) {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    }
  }
  await done;
  return killed;
}

const played = (transcript: Transcript) => transcript.steps.map((step) => step.outcomes.map((outcome) => outcome.kind));

describe('a lost sandbox worker process', () => {
  it('is mechanical: the script killed once is run again on a fresh process and its real outcome recorded, once', async () => {
    const session = sessionOf('slow');
    const killed = await sweepKilling(session, 1);
    expect(killed).toHaveLength(1);
    const transcript = await transcriptOf(session.runDir, session.spec);
    expect(transcript.executions.get(runKey(RUN.call, RUN.index))?.outcome).toMatchObject({ ok: true, value: 7 });
    expect(transcript.records.filter((r) => r.type === 'execution-start' && isRun(r))).toHaveLength(2);
    expect(transcript.records.filter((r) => r.type === 'execution' && isRun(r))).toHaveLength(1);
    const summary = await summaryOf(session.runDir, session.spec);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(played(transcript)).toEqual(PLAYED);
    expect(summary.script?.metrics).toMatchObject({ playedTurns: 3, modelCalls: 5, builds: 1, scriptRuns: 1, submitted: 3 });
    expect(sandboxChildren()).toEqual([]);
  });

  it('is charged to a script that takes the process down every time, after two more runs, and the session goes on', async () => {
    const session = sessionOf('spin');
    const killed = await sweepKilling(session, 10);
    expect(new Set(killed).size).toBe(3);
    const transcript = await transcriptOf(session.runDir, session.spec);
    expect(transcript.executions.get(runKey(RUN.call, RUN.index))?.outcome).toMatchObject({
      ok: false,
      kind: 'worker-lost',
      error: expect.stringMatching(/3 times/),
    });
    expect(transcript.records.filter((r) => r.type === 'execution-start' && isRun(r))).toHaveLength(3);
    expect(transcript.records.filter((r) => r.type === 'execution' && isRun(r))).toHaveLength(1);
    const summary = await summaryOf(session.runDir, session.spec);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(played(transcript)).toEqual(PLAYED);
    expect(summary.script?.metrics).toMatchObject({ playedTurns: 3, modelCalls: 5, builds: 1, scriptRuns: 1, submitted: 3 });
    expect(sandboxChildren()).toEqual([]);
  });
});

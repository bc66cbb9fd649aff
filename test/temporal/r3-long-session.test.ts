import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classSequence } from '../../core/stream/stream.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { startDevServer, type DevServer } from '../../infra/dev-server.js';
import { freePort } from '../../infra/ports.js';
import { scriptedCompletion, scriptedLoopCall, type WireMessage } from '../../bench/scripted-loop-model.js';
import { startLoopback } from '../activities/providers/loopback.js';
import { summaryOf, transcriptOf } from './harness.js';
import { exited, killGroup, startCli, until } from './processes.js';

/*
 * Issue 12, item 5: an R3 session of 400+ model calls survives a worker killed
 * (SIGKILL) right after a call's reply was recorded, and a restart of the
 * Temporal server with the sweep command killed and run again, and finishes
 * as the scripted model plays it undisturbed: every call once, none paid
 * twice. Real processes: `allocbench worker` and `allocbench sweep
 * --no-worker` from the built CLI, a dev server on a SQLite file restarted on
 * it, a loopback model speaking the OpenAI wire format.
 */

const CALLS = 420;
const WRITES = 3;
const CRASH_AT = 150;
const RESTART_AFTER = 280;

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

/** Replies sent, by the length of the conversation they answered: a call asked twice would answer one length twice. */
const answered = new Map<number, number>();
let loopback: Awaited<ReturnType<typeof startLoopback>>;
beforeAll(async () => {
  loopback = await startLoopback((request) => {
    if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'long', object: 'model' }] } };
    const messages = (request.body?.messages ?? []) as WireMessage[];
    answered.set(messages.length, (answered.get(messages.length) ?? 0) + 1);
    const call = scriptedLoopCall(messages, { calls: CALLS, writes: WRITES });
    return { json: scriptedCompletion(call, messages.filter((m) => m.role === 'assistant').length + 1, 'long') };
  });
});
afterAll(async () => loopback?.close());

describe('a long R3 session', () => {
  it('survives a worker killed mid-session and a server restart, resumes exactly and pays no call twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-long-'));
    const raw = {
      name: 'long',
      models: [`openai-compatible/long@${loopback.url}/v1`],
      rungs: ['R3'],
      seeds: [2000],
      budgets: [WRITES],
      r3: { end: 'stream-end' },
      tokenCap: null,
      heartbeatSeconds: 2,
    };
    const file = join(dir, 'long.json');
    writeFileSync(file, JSON.stringify(raw));
    const [spec] = expandSweep(parseSweepConfig(raw));
    if (!spec) throw new Error('empty sweep');
    const runDir = join(dir, 'run');
    const serverOptions = { dbFile: join(dir, 'temporal', 'dev.sqlite'), port: await freePort(), uiPort: await freePort() };
    let server: DevServer = await startDevServer(serverOptions);
    cleanups.push(() => void server.stop());
    const env = { TEMPORAL_ADDRESS: server.address };
    const start = (args: string[], extra: Record<string, string> = {}) => {
      const child = startCli(args, { ...env, ...extra });
      cleanups.push(() => killGroup(child));
      return child;
    };
    const sweepArgs = ['sweep', file, '--no-worker', '--out', runDir, '--json'];
    const calls = () => [...answered.values()].reduce((sum, n) => sum + n, 0);

    // A worker that kills itself right after call CRASH_AT's reply is recorded, before the call's step is.
    const doomed = start(['worker'], { ALLOCBENCH_CRASH_AFTER_REPLY: String(CRASH_AT) });
    await until(() => doomed.output().includes('allocbench worker on'), 120_000, 'the first worker');
    let sweep = start(sweepArgs);
    await exited(doomed);
    expect(doomed.signalCode, doomed.output()).toBe('SIGKILL');
    killGroup(doomed); // its sandbox process
    expect(calls()).toBe(CRASH_AT);

    // A second worker takes over; partway on, the sweep command is killed and the server restarted under it.
    const survivor = start(['worker']);
    await until(() => calls() >= RESTART_AFTER, 120_000, `call ${RESTART_AFTER}`);
    killGroup(sweep);
    await exited(sweep);
    const atRestart = calls();
    await server.stop();
    server = await startDevServer(serverOptions);
    sweep = start(sweepArgs);
    expect(await exited(sweep), sweep.output()).toBe(0);
    survivor.kill('SIGTERM');
    await exited(survivor);

    expect(atRestart).toBeLessThan(CALLS);

    // Every call once, in order, and the one the first worker died in answered once and reused.
    expect(calls()).toBe(CALLS);
    expect([...answered.values()].every((n) => n === 1)).toBe(true);
    const transcript = await transcriptOf(runDir, spec);
    expect(transcript.steps.map((step) => step.call)).toEqual(Array.from({ length: CALLS }, (_, i) => i + 1));
    expect(transcript.records.filter((r) => r.type === 'loop-step')).toHaveLength(CALLS);
    const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
    expect(attempts.map((a) => a.t)).toEqual(transcript.steps.map((step) => step.call));
    // Calls run in-session: the dead worker's call is run again in a new workflow task, as its first attempt there.
    expect(transcript.steps[CRASH_AT - 1]?.reused).toMatchObject({ recordedBy: 1, reusedBy: 1 });

    // The session as the scripted model plays it: the whole stream, a script on the first WRITES families, each run of one correct.
    const summary = await summaryOf(runDir, spec);
    const classes = classSequence(generateStream(spec.seed, spec.stream));
    const scripted = new Set(classes.filter((classId, index) => classes.indexOf(classId) === index).slice(0, WRITES));
    expect(summary.termination).toBe('stream-end');
    expect(summary.script?.metrics).toMatchObject({
      modelCalls: CALLS,
      playedTurns: classes.length,
      scriptRuns: classes.filter((classId) => scripted.has(classId)).length,
      answeredCorrectly: classes.filter((classId) => scripted.has(classId)).length,
    });
    await server.stop();
  });
});

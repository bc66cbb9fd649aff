import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import type { AuditReport } from '../../analysis/audit-report.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { decisionsOf, ownServerForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { s3ServerForThisFile } from '../run-store/s3-server.js';
import { exited, killGroup, startCli, until } from './processes.js';

/*
 * Item 2 of issue 14: a worker killed (SIGKILL) after the model's reply came
 * back and before the turn was recorded. The retried activity must use the
 * recorded reply, not pay for the call again, and the session must end as an
 * undisturbed one does. Real processes: `allocbench worker` (killed by the
 * ALLOCBENCH_CRASH_AFTER_REPLY hook at exactly that point), then a fresh one;
 * the sweep is the built CLI with --no-worker; the model is a loopback server
 * speaking the OpenAI wire format, which counts what it is asked.
 */

const temporal = ownServerForThisFile();
/** The run store on S3 (a real S3 server on loopback) for one case, on disk for the others. */
const s3 = s3ServerForThisFile();
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

type Message = { role: string; content: string | null };
const messagesOf = (request: RecordedRequest) => (request.body?.messages ?? []) as Message[];

/** Chat requests by the conversation they extend (the turn's user message), per run. */
let requests: RecordedRequest[] = [];
let loopback: Awaited<ReturnType<typeof startLoopback>>;

/** A stand-in model: deterministic in the conversation; claims at its 2nd and 5th decision, skips otherwise. */
function standIn(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'stand-in', object: 'model' }] } };
  requests.push(request);
  const turn = messagesOf(request).filter((m) => m.role === 'assistant').length + 1;
  const name = turn === 2 || turn === 5 ? 'claim_solver' : 'skip_solver';
  return { json: chatCompletion({ tool_calls: [functionCall(`call_${turn}`, name, '{}')] }, { prompt_tokens: 400 + turn }, 'stand-in') };
}

beforeAll(async () => {
  loopback = await startLoopback(standIn);
});
afterAll(async () => loopback?.close());

/** The user message that opens each request's turn: what identifies a turn's call at the server. */
const turnMessages = () => requests.map((request) => messagesOf(request).at(-1)?.content ?? '');

function sweepFile(name: string, raw: Record<string, unknown>): { file: string; config: SweepConfig } {
  const file = join(temporal.dir, `${name}.json`);
  const full = { name, heartbeatSeconds: 2, ...raw };
  writeFileSync(file, JSON.stringify(full));
  return { file, config: parseSweepConfig(full) };
}

const only = (config: SweepConfig): SessionSpec => {
  const [spec] = expandSweep(config);
  if (!spec) throw new Error('empty sweep');
  return spec;
};

/**
 * Runs the sweep with the built CLI against the test server: a first worker
 * process that kills itself right after turn `crashAt`'s reply is recorded
 * (`<role>:<t>`: a split agent's planner turn or builder call),
 * then, once it is dead, a second one that finishes the sweep.
 */
async function runWithCrash(file: string, runDir: string, crashAt: number | string): Promise<void> {
  const env = { ...temporal.env, ...s3.server.env };
  const doomed = startCli(['worker'], { ...env, ALLOCBENCH_CRASH_AFTER_REPLY: String(crashAt) });
  cleanups.push(() => killGroup(doomed));
  await until(() => doomed.output().includes('allocbench worker on'), 120_000, 'the first worker');
  const sweep = startCli(['sweep', file, '--no-worker', '--out', runDir, '--json'], env);
  cleanups.push(() => killGroup(sweep));
  await exited(doomed);
  expect(doomed.signalCode, doomed.output()).toBe('SIGKILL');
  killGroup(doomed); // its sandbox process, if any
  const survivor = startCli(['worker'], env);
  cleanups.push(() => killGroup(survivor));
  expect(await exited(sweep), sweep.output()).toBe(0);
  survivor.kill('SIGTERM');
  await exited(survivor);
}

/** `allocbench audit <run> --json` from the built CLI. */
async function audit(runDir: string, json = true): Promise<string> {
  const child = startCli(['audit', runDir, ...(json ? ['--json'] : [])], s3.server.env);
  expect(await exited(child), child.output()).toBe(0);
  return child.output();
}

const costsOf = (runDir: string) => openRunStore(runDir).readCosts();

describe('a reply recorded before its worker died is used, never paid for again', () => {
  // In-session, the call is retried in a new workflow task as its first attempt there; on a provider queue, as attempt 2.
  it.each([
    ['in-session', 1, 'disk'],
    ['provider-queue', 2, 'disk'],
    ['in-session', 1, 's3'],
  ] as const)(
    'decision turns (R1, OpenAI-compatible loopback, calls $0, run on $2): one call per turn, the same decisions as an undisturbed run, reuse in audit',
    async (modelCalls, reusedBy, where) => {
      const model = `openai-compatible/stand-in@${loopback.url}/v1`;
      const settings = {
        modelCalls,
        models: [model],
        rungs: ['R1'],
        seeds: [2000],
        stream: { length: 12 },
        prices: { [model]: { input: 1, cachedInput: 0.1, output: 5 } },
      };
      // The undisturbed run: what the session decides, and which turns it calls the model at.
      requests = [];
      const reference = sweepFile(`undisturbed-r1-${modelCalls}-${where}`, settings);
      await sweepOn(temporal.server, reference.config, join(temporal.dir, `undisturbed-r1-${modelCalls}-${where}`));
      const expected = await summaryOf(join(temporal.dir, `undisturbed-r1-${modelCalls}-${where}`), only(reference.config));
      const expectedCalls = turnMessages();
      const turns = (await transcriptOf(join(temporal.dir, `undisturbed-r1-${modelCalls}-${where}`), only(reference.config))).turns;
      const crashAt = turns[2]?.t;
      if (crashAt === undefined) throw new Error('the session has fewer than three decision turns');

      requests = [];
      const { file, config } = sweepFile(`crashed-r1-${modelCalls}-${where}`, settings);
      const runDir =
        where === 's3' ? `${await s3.server.bucket(`paid-once-${modelCalls}`)}/crashed-r1` : join(temporal.dir, `crashed-r1-${modelCalls}`);
      await runWithCrash(file, runDir, crashAt);
      const spec = only(config);

      // Paid once: the server saw each turn's call exactly once, the crashed turn's included.
      expect(turnMessages()).toEqual(expectedCalls);
      const summary = await summaryOf(runDir, spec);
      expect(summary.termination).toBe('stream-end');
      expect(decisionsOf(summary)).toEqual(decisionsOf(expected));
      expect(summary.costUsd).toBeCloseTo(expected.costUsd, 12);
      expect(summary.attempts.total).toBe(expectedCalls.length);

      const transcript = await transcriptOf(runDir, spec);
      const attempts = transcript.attemptsSinceResume(crashAt);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ outcome: 'ok', activityAttempt: 1, stopReason: 'tool-use', reply: { toolCalls: [{}] } });
      expect(attempts[0]?.costUsd).toBeGreaterThan(0);
      const turn = transcript.turns.find((candidate) => candidate.t === crashAt);
      expect(turn?.reused).toEqual({ attempt: 1, recordedBy: 1, reusedBy });
      expect(turn?.reply).toEqual(attempts[0]?.reply);
      expect(transcript.records.filter((r) => r.type === 'turn' && r.t === crashAt)).toHaveLength(1);
      // The cost ledger (the run cap's count) has the call once, though the worker died before writing it.
      const costs = (await costsOf(runDir)).filter((entry) => entry.t === crashAt);
      expect(costs).toEqual([expect.objectContaining({ t: crashAt, at: attempts[0]?.at, costUsd: attempts[0]?.costUsd })]);
      expect(await costsOf(runDir)).toHaveLength(expectedCalls.length);

      const report = JSON.parse(await audit(runDir)) as AuditReport;
      expect(report).toMatchObject({ reusedReplies: 1, lostAttempts: 0, attempts: expectedCalls.length });
      expect(report.turns.find((t) => t.t === crashAt)?.reused).toEqual({ attempt: 1, recordedBy: 1, reusedBy });
      expect(await audit(runDir, false)).toMatch(new RegExp(`reply 1 reused by activity attempt ${reusedBy}, not paid again`));
    },
    180_000,
  );

  it('R3 model calls (reference builder): the crashed call is played once, the session as undisturbed', async () => {
    const settings = { models: ['policy/commit-at-2?cost=0.001'], rungs: ['R3'], seeds: [2000], r3: { end: 'budget-exhausted' } };
    const reference = sweepFile('undisturbed-r3', settings);
    await sweepOn(temporal.server, reference.config, join(temporal.dir, 'undisturbed-r3'));
    const expected = await summaryOf(join(temporal.dir, 'undisturbed-r3'), only(reference.config));
    const expectedSteps = (await transcriptOf(join(temporal.dir, 'undisturbed-r3'), only(reference.config))).steps;
    // The crash hook counts R3's model calls: call 3 is the reply that follows a write or a submission.
    const crashAt = 3;
    expect(expectedSteps.length).toBeGreaterThan(crashAt);

    const { file, config } = sweepFile('crashed-r3', settings);
    const runDir = join(temporal.dir, 'crashed-r3');
    await runWithCrash(file, runDir, crashAt);
    const spec = only(config);
    const summary = await summaryOf(runDir, spec);
    expect(summary.termination).toBe(expected.termination);
    expect(summary.script?.metrics).toEqual(expected.script?.metrics);
    expect(summary.metrics).toEqual(expected.metrics);

    const transcript = await transcriptOf(runDir, spec);
    const played = (steps: typeof expectedSteps) =>
      steps.map(({ call, t, reply, outcomes, advanced, submitted }) => ({ call, t, reply, outcomes, advanced, submitted }));
    expect(played(transcript.steps)).toEqual(played(expectedSteps));
    const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
    // One provider call per model call: the policy agent's reply at the crashed call was recorded once and never asked for again.
    expect(attempts.map((a) => a.t)).toEqual(transcript.steps.map((step) => step.call));
    expect(attempts.filter((a) => a.t === crashAt)).toMatchObject([{ outcome: 'ok', activityAttempt: 1 }]);
    // A reference agent's calls are local activities: the call is retried in a new workflow task, as its first attempt there.
    expect(transcript.steps.find((step) => step.call === crashAt)?.reused).toMatchObject({ attempt: 1, recordedBy: 1 });
    expect(transcript.records.filter((r) => r.type === 'loop-step' && r.call === crashAt)).toHaveLength(1);
    expect(summary.costUsd).toBeCloseTo(expected.costUsd, 12);
    expect((await costsOf(runDir)).filter((entry) => entry.t === crashAt)).toHaveLength(1);
    expect(await costsOf(runDir)).toHaveLength(attempts.length);
    const report = JSON.parse(await audit(runDir)) as AuditReport;
    expect(report).toMatchObject({ reusedReplies: 1, lostAttempts: 0, attempts: attempts.length });
  });
  it("a split agent's planner (R1 turns through an OpenAI-compatible loopback, a reference builder): its crashed turn is paid once", async () => {
    const planner = `openai-compatible/stand-in@${loopback.url}/v1`;
    const settings = {
      agent: { kind: 'split', planner, builder: 'policy/commit-at-2?cost=0.001' },
      rungs: ['R3'],
      seeds: [2000],
      stream: { length: 12 },
      prices: { [planner]: { input: 1, cachedInput: 0.1, output: 5 } },
    };
    requests = [];
    const reference = sweepFile('undisturbed-split', settings);
    await sweepOn(temporal.server, reference.config, join(temporal.dir, 'undisturbed-split'));
    const expected = await summaryOf(join(temporal.dir, 'undisturbed-split'), only(reference.config));
    const expectedTranscript = await transcriptOf(join(temporal.dir, 'undisturbed-split'), only(reference.config));
    const expectedCalls = turnMessages();
    // The stand-in claims at its 2nd decision: its 3rd comes after the builder has worked on the claimed problem.
    const crashAt = expectedTranscript.turns[2]?.t;
    if (crashAt === undefined) throw new Error('the session has fewer than three decision turns');
    expect(expectedTranscript.steps.some((step) => step.t < crashAt)).toBe(true);

    requests = [];
    const { file, config } = sweepFile('crashed-split', settings);
    const runDir = join(temporal.dir, 'crashed-split');
    await runWithCrash(file, runDir, `planner:${crashAt}`);
    const spec = only(config);
    expect(turnMessages()).toEqual(expectedCalls);
    const summary = await summaryOf(runDir, spec);
    expect(summary.metrics).toEqual(expected.metrics);
    expect(summary.script?.metrics).toEqual(expected.script?.metrics);
    expect(summary.costUsd).toBeCloseTo(expected.costUsd, 12);

    const transcript = await transcriptOf(runDir, spec);
    expect(transcript.attemptsSinceResume(crashAt, 'planner')).toMatchObject([{ outcome: 'ok', activityAttempt: 1, role: 'planner' }]);
    expect(transcript.turns.find((turn) => turn.t === crashAt)?.reused).toMatchObject({ attempt: 1, recordedBy: 1 });
    const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
    expect(attempts).toHaveLength(transcript.turns.length + transcript.steps.length);
    const costs = await costsOf(runDir);
    expect(costs.filter((entry) => entry.role === 'planner' && entry.t === crashAt)).toHaveLength(1);
    expect(costs).toHaveLength(attempts.length);
    const report = JSON.parse(await audit(runDir)) as AuditReport;
    expect(report.turns).toEqual([expect.objectContaining({ t: crashAt, role: 'planner', reused: expect.any(Object) })]);
  });
});

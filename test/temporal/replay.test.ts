import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { SERVED_LOG_VARIABLE } from '../../activities/providers/policy-provider.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { anthropicMessage } from '../activities/providers/wire.js';
import { runCliWith } from '../cli/run-cli.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

/*
 * A sweep replayed from its recorded replies (--replay-from) through the real
 * Temporal server: every summary as recorded, no model asked, nothing paid; a
 * request that differs from the recorded one is a miss, recorded as a provider
 * error naming the call, or asked of the live model with `miss: live`.
 */

const temporal = serverForThisFile();

/** Two reference agents with faults the replay must reproduce: transport retries, an unresolved turn, a cost per call, R3's hand-worked answer and silent replies. */
const MODELS = ['policy/commit-at-2?transport=2x1&reply=4:no-decision&cost=0.01', 'policy/eager?hand=3&silent=5x1'];

const sweep = (name: string, extra: Record<string, unknown> = {}) =>
  parseSweepConfig({ name, models: MODELS, rungs: ['R0', 'probe', 'R1', 'R2', 'R3'], seeds: [2000, 2001], announceN: [true], ...extra });

/** A summary without what a replay may change: when it finished and what it paid. */
const comparable = (summary: SessionSummary) => ({ ...summary, finishedAt: undefined, costUsd: undefined });

const attemptsOf = async (runDir: string, spec: SessionSpec) =>
  (await transcriptOf(runDir, spec)).records.filter((r): r is AttemptRecord => r.type === 'attempt');

/** Replies the reference agents served (their own log, outside the run store): calls actually made. */
const servedLog = () => join(temporal.dir, 'served.log');
const served = () => (existsSync(servedLog()) ? readFileSync(servedLog(), 'utf8').split('\n').filter(Boolean).length : 0);

beforeAll(() => {
  process.env[SERVED_LOG_VARIABLE] = servedLog();
});
afterAll(() => {
  delete process.env[SERVED_LOG_VARIABLE];
});

/** The recorded run the later tests replay from, and its sweep. */
const recordedRun = () => join(temporal.dir, 'recorded');
let recordedConfig: SweepConfig;

describe('a sweep replayed from its recorded replies', () => {
  it('gives every session the recorded summary, at every rung, without asking the model or paying', async () => {
    recordedConfig = sweep('replayed');
    const source = recordedRun();
    expect(await sweepOn(temporal.server, recordedConfig, source)).toMatchObject({ finished: 20, failed: 0 });
    expect(served()).toBeGreaterThan(0);
    rmSync(servedLog());
    const recordedSummaries = await Promise.all(expandSweep(recordedConfig).map((spec) => summaryOf(source, spec)));
    expect(recordedSummaries.filter((s) => s.attempts.transportErrors > 0).length).toBeGreaterThan(0);
    expect(recordedSummaries.filter((s) => s.metrics.unresolved > 0).length).toBeGreaterThan(0);

    const replay = join(temporal.dir, 'replay');
    const config = { ...recordedConfig, replay: { from: source, miss: 'error' as const } };
    expect(await sweepOn(temporal.server, config, replay)).toMatchObject({ finished: 20, failed: 0, mechanicalFailures: 0 });
    expect(served()).toBe(0);

    for (const spec of expandSweep(config)) {
      const [before, after] = [await summaryOf(source, spec), await summaryOf(replay, spec)];
      expect(comparable(after), sessionKey(spec)).toEqual(comparable(before));
      expect(after.costUsd).toBe(0);
      // Every attempt again, the transport errors included, each marked as replayed and for the same request.
      const [original, again] = [await attemptsOf(source, spec), await attemptsOf(replay, spec)];
      expect(again.map((a) => [a.t, a.attempt, a.outcome, a.request, a.usage])).toEqual(
        original.map((a) => [a.t, a.attempt, a.outcome, a.request, a.usage]),
      );
      for (const attempt of again) {
        expect(attempt.replayedFrom).toBe(source);
        expect(attempt.costUsd).toBe(attempt.outcome === 'ok' ? 0 : undefined);
      }
    }
    const paid = (await openRunStore(source).readCosts()).length;
    expect(paid).toBeGreaterThan(0);
    expect(await openRunStore(replay).readCosts()).toEqual([]);
  });

  it('replays a split agent: the planner’s turns and the builder’s calls each from their own record', async () => {
    const split = parseSweepConfig({
      name: 'split-replayed',
      agent: { kind: 'split', planner: 'policy/commit-at-2?transport=1x1&cost=0.01', builder: 'policy/commit-at-2?transport=2x1' },
      rungs: ['R3'],
      announceN: [true],
      seeds: [2000],
    });
    const source = join(temporal.dir, 'split-recorded');
    expect(await sweepOn(temporal.server, split, source)).toMatchObject({ finished: 1, failed: 0 });
    rmSync(servedLog());
    const replay = join(temporal.dir, 'split-replay');
    const config = { ...split, replay: { from: source, miss: 'error' as const } };
    expect(await sweepOn(temporal.server, config, replay)).toMatchObject({ finished: 1, failed: 0, mechanicalFailures: 0 });
    expect(served()).toBe(0);
    const [spec] = expandSweep(config);
    if (!spec) throw new Error('no split session');
    expect(comparable(await summaryOf(replay, spec))).toEqual(comparable(await summaryOf(source, spec)));
    const [original, again] = [await attemptsOf(source, spec), await attemptsOf(replay, spec)];
    expect(new Set(again.map((a) => a.role))).toEqual(new Set(['planner', 'builder']));
    expect(again.map((a) => [a.role, a.t, a.attempt, a.outcome, a.request])).toEqual(
      original.map((a) => [a.role, a.t, a.attempt, a.outcome, a.request]),
    );
  });

  it('misses a request that differs from the recorded one: a provider error naming the call, the session a mechanical failure', async () => {
    // An economic cell states the charge rule in the system prompt: the same sessions, another prompt.
    const config = {
      ...recordedConfig,
      rungs: ['R1' as const],
      seeds: [2000],
      economic: true,
      replay: { from: recordedRun(), miss: 'error' as const },
    };
    const runDir = join(temporal.dir, 'changed-prompt');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 0, mechanicalFailures: 2 });
    expect(served()).toBe(0);
    for (const spec of expandSweep(config)) {
      const summary = await summaryOf(runDir, spec);
      expect(summary).toMatchObject({ termination: 'provider-error', mechanicalFailure: true });
      const attempts = await attemptsOf(runDir, spec);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]?.outcome).toBe('permanent-error');
      expect(attempts[0]?.error).toBe(
        `replay from ${recordedRun()}: no reply recorded for ${sessionKey(spec)}, turn 1, attempt 1: the request differs from the recorded one (a changed prompt, tool, model or limit)`,
      );
    }
  });

  it('asks the live model where the recorded run has no reply, with miss: live', async () => {
    const config = {
      ...recordedConfig,
      rungs: ['R1' as const],
      seeds: [2000],
      economic: true,
      replay: { from: recordedRun(), miss: 'live' as const },
    };
    const runDir = join(temporal.dir, 'changed-prompt-live');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 2, mechanicalFailures: 0 });
    expect(served()).toBeGreaterThan(0);
    for (const spec of expandSweep(config)) {
      expect((await summaryOf(runDir, spec)).termination).toBe('stream-end');
      expect((await attemptsOf(runDir, spec)).some((a) => a.replayedFrom !== undefined)).toBe(false);
    }
    expect((await openRunStore(runDir).readCosts()).length).toBeGreaterThan(0);
  });
});

/** The command's error lines, its own and commander's (others say where the run is). */
const errorLines = (stderr: string) => stderr.split('\n').filter((line) => /^(allocbench|error):/.test(line));

describe('replay from the command line', () => {
  const cli = (...args: string[]) => runCliWith(temporal.env, args);
  const run = (out: string, ...extra: string[]) =>
    cli('run', '--model', MODELS[0] as string, '--rung', 'R1', '--seeds', '2000', '--announce-n', '--out', out, ...extra);

  it('replays a sweep file whose recorded run is relative to it, and lists a miss with its line, exit 3', async () => {
    const file = join(temporal.dir, 'replay.yaml');
    writeFileSync(
      file,
      `name: replayed\nmodels: ['${MODELS[0]}']\nrungs: [R1]\nseeds: [2000]\nannounceN: [true]\nreplay: {from: recorded}\n`,
    );
    const replayed = cli('sweep', file, '--out', join(temporal.dir, 'cli-replayed'));
    expect(replayed.status, replayed.stderr).toBe(0);
    const [spec] = expandSweep(recordedConfig).filter((s) => s.model === MODELS[0] && s.rung === 'R1' && s.seed === 2000);
    if (!spec) throw new Error('no such recorded session');
    expect(comparable(await summaryOf(join(temporal.dir, 'cli-replayed'), spec))).toEqual(comparable(await summaryOf(recordedRun(), spec)));

    const missed = run(join(temporal.dir, 'cli-missed'), '--economic', '--replay-from', recordedRun());
    expect(missed.status, missed.stderr).toBe(3);
    expect(missed.stderr).toContain(
      `(failed mechanically: provider-error): replay from ${recordedRun()}: no reply recorded for ${MODELS[0]}/R1/B3-K0/n-announced/seed-2000, turn 1, attempt 1: the request differs from the recorded one`,
    );
  });

  it.each([
    [['--replay-from', '/no/such/run'], /^allocbench: --replay-from: \/no\/such\/run: no such run directory$/],
    [['--replay-miss', 'live'], /^allocbench: --replay-miss: applies only with --replay-from/],
    [['--replay-from', 'recorded', '--replay-miss', 'sometimes'], /--replay-miss.*sometimes/],
  ])('refuses %j with one line, exit 2', (flags, message) => {
    const result = run(join(temporal.dir, 'cli-refused'), ...flags.map((flag) => (flag === 'recorded' ? recordedRun() : flag)));
    expect(result.status, result.stderr).toBe(2);
    expect(errorLines(result.stderr)).toHaveLength(1);
    expect(errorLines(result.stderr)[0]).toMatch(message);
  });

  it('refuses to replay a run into itself', () => {
    const result = run(recordedRun(), '--replay-from', recordedRun());
    expect(result.status).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      `allocbench: --replay-from ${recordedRun()}: is the run being written; replay into another --out`,
    ]);
  });
});

const KEY = 'sk-ant-replay-secret-41c9';
const MODEL = 'anthropic/claude-haiku-4-5-20251001';

/** Keeps an item at its second sighting, in the Messages API's wire format, with usage to price. */
function playUrn(request: RecordedRequest) {
  const messages = (request.body?.messages ?? []) as { role: string; content: { text?: string }[] }[];
  const draws = messages
    .filter((m) => m.role === 'user')
    .map((m) => /Draw \d+ of \d+: an? (\w+)/.exec(m.content.map((block) => block.text ?? '').join(' '))?.[1] ?? '');
  const decision = draws.slice(0, -1).includes(draws.at(-1) ?? '') ? 'KEEP' : 'PASS';
  return { json: anthropicMessage([{ type: 'text', text: `DECISION: ${decision}` }], { input_tokens: 400, output_tokens: 6 }) };
}

describe('a hosted model replayed (the real Anthropic SDK against a loopback server)', () => {
  let loopback: Awaited<ReturnType<typeof startLoopback>>;
  beforeAll(async () => {
    loopback = await startLoopback(playUrn);
    process.env.ANTHROPIC_BASE_URL = loopback.url;
  });
  afterAll(async () => {
    delete process.env.ANTHROPIC_BASE_URL;
    delete process.env.ANTHROPIC_API_KEY;
    await loopback?.close();
  });

  it('replays without a key or a request, and a changed request with miss: live goes to the server and is paid', async () => {
    const config = parseSweepConfig({
      name: 'hosted-replay',
      models: [MODEL],
      rungs: ['R0'],
      seeds: [2000, 2001],
      prices: { [MODEL]: { input: 1, cachedInput: 0.1, output: 5 } },
    });
    const source = join(temporal.dir, 'hosted-recorded');
    process.env.ANTHROPIC_API_KEY = KEY;
    await sweepOn(temporal.server, config, source);
    const requests = loopback.requests.length;
    expect(requests).toBeGreaterThan(0);

    delete process.env.ANTHROPIC_API_KEY;
    const replay = join(temporal.dir, 'hosted-replay');
    expect(await sweepOn(temporal.server, { ...config, replay: { from: source, miss: 'error' } }, replay)).toMatchObject({
      finished: 2,
      mechanicalFailures: 0,
    });
    expect(loopback.requests.length).toBe(requests);
    for (const spec of expandSweep(config)) {
      const [before, after] = [await summaryOf(source, spec), await summaryOf(replay, spec)];
      expect(before.costUsd).toBeGreaterThan(0);
      expect(after.costUsd).toBe(0);
      expect(comparable(after)).toEqual(comparable(before));
    }
    expect(await openRunStore(replay).readCosts()).toEqual([]);

    process.env.ANTHROPIC_API_KEY = KEY;
    const live = join(temporal.dir, 'hosted-live');
    const changed = { ...config, temperature: 0.5, replay: { from: source, miss: 'live' as const } };
    expect(await sweepOn(temporal.server, changed, live)).toMatchObject({ finished: 2, mechanicalFailures: 0 });
    expect(loopback.requests.length).toBeGreaterThan(requests);
    expect(loopback.requests.at(-1)?.body).toMatchObject({ temperature: 0.5 });
    for (const spec of expandSweep(changed)) expect((await summaryOf(live, spec)).costUsd).toBeGreaterThan(0);
  });
});

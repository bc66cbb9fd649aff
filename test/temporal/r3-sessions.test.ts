import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { runSession } from '../../core/session/run-session.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { parsePolicyAgent } from '../../activities/providers/policy-provider.js';
import { loopExchanges } from '../../activities/loop-conversation.js';
import { replayRecordedHistories, serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/** What the core's in-process engine does with the same policy: its commitments and the problems they credit. */
function coreExpectation(spec: SessionSpec) {
  const classes = generateStream(spec.seed, spec.stream).items.map((item) => FAMILY_NAMES.indexOf(item.family));
  const record = runSession(
    classes,
    { budget: spec.budget, charge: spec.charge, classCount: 8 },
    parsePolicyAgent(spec.model.slice('policy/'.length)).policy,
  );
  const commits = record.decisions.filter((d) => d.action === 'commit');
  const creditedTurns = classes.flatMap((classId, index) =>
    commits.some((c) => c.classId === classId && c.t <= index + 1) ? [index + 1] : [],
  );
  return { classes, commits, creditedTurns, metrics: sessionMetrics(record) };
}

describe('R3 agent-loop sessions on a real Temporal server, scripts in the sandbox worker process', () => {
  it('write where the policy commits, run and submit, and answer what the core expects', async () => {
    const config = parseSweepConfig({
      name: 'r3-stream-end',
      models: ['policy/eager', 'policy/commit-at-2'],
      rungs: ['R3'],
      announceN: [true],
      seeds: [2000, 2001],
      r3: { end: 'stream-end' },
      // A whole stream of calls passes the default cap; the cap has its own test.
      tokenCap: 10_000_000,
      window: 4,
    });
    const runDir = join(temporal.dir, 'r3-stream-end');
    const progress = await sweepOn(temporal.server, config, runDir);
    expect(progress).toMatchObject({ finished: 4, failed: 0, mechanicalFailures: 0 });
    for (const spec of expandSweep(config)) {
      const expected = coreExpectation(spec);
      const summary = await summaryOf(runDir, spec);
      const transcript = await transcriptOf(runDir, spec);
      expect(summary.termination, sessionKey(spec)).toBe('stream-end');
      const writes = transcript.steps.flatMap((step) => (step.outcomes.some((o) => o.kind === 'written') ? [step.t] : []));
      expect(writes).toEqual(expected.commits.map((c) => c.t));
      expect(transcript.steps.filter((step) => step.submitted?.correct).map((step) => step.t)).toEqual(expected.creditedTurns);
      // Three calls where it writes (write, run, submit), two where a script exists, one elsewhere.
      const calls = expected.creditedTurns.length * 2 + expected.commits.length + (60 - expected.creditedTurns.length);
      const core = expected.metrics;
      expect(summary.metrics).toMatchObject({
        utility: core.utility,
        commitments: core.commitments,
        firstSightCommitments: core.firstSightCommitments,
        firstOccurrenceTurns: core.firstOccurrenceTurns,
        totalLateness: core.totalLateness,
      });
      expect(summary.script?.metrics).toMatchObject({
        playedTurns: 60,
        modelCalls: calls,
        scriptSuccessRate: 1,
        crossClassRunsRefused: 0,
        forcedAdvances: 0,
        reuseRuns: core.utility - core.commitments,
        rawAnswers: 60 - core.utility,
        rawCorrect: 0,
      });
      // Every tool result carries tokens_remaining, counting down from the cap.
      const results = loopExchanges(transcript, 60).flatMap((exchange) => exchange.toolResults);
      const remaining = results.map((result) => (JSON.parse(result.content) as { tokens_remaining: number }).tokens_remaining);
      expect(remaining.every((tokens) => typeof tokens === 'number' && tokens < 10_000_000)).toBe(true);
      expect(remaining).toEqual([...remaining].sort((a, b) => b - a));
    }
  });

  it("stop right after the B-th write, as the paper's sessions did", async () => {
    const config = parseSweepConfig({ name: 'r3-budget', models: ['policy/commit-at-2'], rungs: ['R3'], seeds: [2000] });
    const runDir = join(temporal.dir, 'r3-budget');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const expected = coreExpectation(spec!);
    const last = expected.commits.at(-1)?.t ?? 60;
    const summary = await summaryOf(runDir, spec!);
    expect(summary.termination).toBe('budget-exhausted');
    expect(summary.script?.metrics.playedTurns).toBe(last);
    // The hazard replays the builds through the whole stream.
    expect(summary.metrics).toMatchObject({ commitments: 3, firstSightCommitments: expected.metrics.firstSightCommitments });
    expect(summary.metrics.firstOccurrenceTurns).toBe(expected.metrics.firstOccurrenceTurns);
    const transcript = await transcriptOf(runDir, spec!);
    expect(transcript.steps.at(-1)?.outcomes).toEqual([{ kind: 'written', name: expect.any(String) }]);
  });

  it('count every injected fault: cross-class run, broken script, hand and wrong submissions, silence, a write over budget', async () => {
    const base = parseSweepConfig({
      name: 'probe',
      models: ['policy/commit-at-2'],
      rungs: ['R3'],
      seeds: [2000],
      r3: { end: 'stream-end' },
    });
    const { classes, commits } = coreExpectation(expandSweep(base)[0]!);
    const [first, second, third] = commits;
    if (!first || !second || !third) throw new Error('seed 2000 has fewer than three commitments');
    const heldAt = (t: number) => commits.some((c) => c.t < t && c.classId === classes[t - 1]);
    const unheld = (after: number, skip: number[] = []) =>
      classes.findIndex((_, i) => i + 1 > after && !heldAt(i + 1) && !commits.some((c) => c.t === i + 1) && !skip.includes(i + 1)) + 1;
    const held = (after: number, skip: number[] = []) =>
      classes.findIndex((_, i) => i + 1 > after && heldAt(i + 1) && classes[i] !== second.classId && !skip.includes(i + 1)) + 1;
    const cross = unheld(first.t);
    const hand = unheld(cross);
    const reminded = unheld(hand);
    const forced = unheld(reminded);
    const wrong = held(first.t);
    const over = unheld(third.t, [cross, hand, reminded, forced]);
    const faults = `cross=${cross}&hand=${hand}&broken=${second.t}&silent=${reminded}x1,${forced}x2&wrong=${wrong}&overwrite=${over}`;
    const config = parseSweepConfig({
      name: 'r3-faults',
      models: [`policy/commit-at-2?${faults}`],
      rungs: ['R3'],
      seeds: [2000],
      r3: { end: 'stream-end' },
      tokenCap: 10_000_000,
    });
    const runDir = join(temporal.dir, 'r3-faults');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const summary = await summaryOf(runDir, spec!);
    const transcript = await transcriptOf(runDir, spec!);
    const stepsAt = (t: number) => transcript.steps.filter((step) => step.t === t);
    expect(stepsAt(cross)[0]?.outcomes).toEqual([{ kind: 'run-refused', name: expect.any(String) }]);
    expect([...transcript.executions.values()].some((run) => run.t === cross)).toBe(false);
    expect(stepsAt(hand).at(-1)?.submitted?.correct).toBe(true);
    expect(stepsAt(wrong).at(-1)?.submitted?.correct).toBe(false);
    expect(stepsAt(reminded).map((step) => step.outcomes.length > 0)).toEqual([false, true]);
    expect(stepsAt(reminded)[1]?.user).toMatch(/no tool call/);
    expect(stepsAt(forced)).toHaveLength(2);
    expect(stepsAt(forced)[1]?.advanced).toBe('forced');
    expect(stepsAt(over)[0]?.outcomes).toEqual([{ kind: 'write-refused', name: expect.any(String) }]);
    const brokenRun = [...transcript.executions.values()].find((run) => run.t === second.t);
    expect(brokenRun?.outcome).toMatchObject({ ok: false, kind: 'throw' });
    expect(summary.script?.metrics).toMatchObject({
      crossClassRunsRefused: 1,
      writesRefused: 1,
      forcedAdvances: 1,
      rawCorrect: 1,
      builds: 3,
      distinctClassesBuilt: 3,
    });
    const shown = loopExchanges(transcript, 60);
    const crossCall = stepsAt(cross)[0]?.call ?? 0;
    expect(JSON.parse(shown[crossCall - 1]?.toolResults[0]?.content ?? '{}')).toMatchObject({
      ok: false,
      tokens_remaining: expect.any(Number),
    });
  });

  it('replay deterministically from their recorded histories', async () => {
    const replayed = await replayRecordedHistories(temporal.server, 'WorkflowType = "sessionWorkflow" AND Rung = "R3"');
    expect(replayed).toBe(6);
  });
});

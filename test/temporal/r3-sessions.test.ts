import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { runSession } from '../../core/session/run-session.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { parsePolicyAgent } from '../../activities/providers/policy-provider.js';
import { workflowsPath } from '../../workers/create-workers.js';
import { scriptExchanges } from '../../activities/script-conversation.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/** What the core's in-process engine does with the same policy: its commitments and the items they credit. */
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

describe('R3 sessions on a real Temporal server, scripts in the sandbox worker process', () => {
  it('build where the policy commits, rerun on later items, and credit what the core expects', async () => {
    const config = parseSweepConfig({
      name: 'r3-stream-end',
      models: ['policy/eager', 'policy/commit-at-2', 'policy/bayes'],
      rungs: ['R3'],
      announceN: [true],
      seeds: [2000, 2001, 2002],
      r3: { end: 'stream-end' },
      window: 9,
    });
    const runDir = join(temporal.dir, 'r3-stream-end');
    const progress = await sweepOn(temporal.server, config, runDir);
    expect(progress).toMatchObject({ finished: 9, failed: 0, mechanicalFailures: 0 });
    for (const spec of expandSweep(config)) {
      const expected = coreExpectation(spec);
      const summary = await summaryOf(runDir, spec);
      const turns = summary.script?.turns ?? [];
      expect(summary.termination, sessionKey(spec)).toBe('stream-end');
      expect(turns).toHaveLength(60);
      expect(turns.filter((turn) => turn.action === 'write').map((turn) => turn.t)).toEqual(expected.commits.map((c) => c.t));
      expect(turns.filter((turn) => turn.credited).map((turn) => turn.t)).toEqual(expected.creditedTurns);
      const core = expected.metrics;
      expect(summary.metrics).toMatchObject({
        utility: core.utility,
        commitments: core.commitments,
        firstSightCommitments: core.firstSightCommitments,
        firstOccurrenceTurns: core.firstOccurrenceTurns,
        totalLateness: core.totalLateness,
        keepsByOccurrence: core.keepsByOccurrence,
        unresolved: 0,
        truncated: 0,
      });
      expect(summary.script?.metrics).toMatchObject({
        scriptSuccessRate: 1,
        crossClassRunsRefused: 0,
        reuseRuns: core.utility - core.commitments,
        rawAnswers: 60 - core.utility,
        rawCorrect: 0,
      });
    }
  });

  it("stop right after the last write, as the paper's sessions did", async () => {
    const config = parseSweepConfig({ name: 'r3-budget', models: ['policy/commit-at-2'], rungs: ['R3'], seeds: [2000, 2001] });
    const runDir = join(temporal.dir, 'r3-budget');
    await sweepOn(temporal.server, config, runDir);
    for (const spec of expandSweep(config)) {
      const expected = coreExpectation(spec);
      const last = expected.commits.at(-1)?.t ?? 60;
      const summary = await summaryOf(runDir, spec);
      expect(expected.commits).toHaveLength(3);
      expect(summary.termination).toBe('budget-exhausted');
      expect(summary.script?.metrics.playedTurns).toBe(last);
      expect(summary.metrics).toMatchObject({
        commitments: 3,
        truncated: 60 - last,
        utility: expected.creditedTurns.filter((t) => t <= last).length,
      });
    }
  });

  it('refuse a cross-class run without running it, credit a correct raw answer and record a failing script', async () => {
    const base = parseSweepConfig({
      name: 'probe',
      models: ['policy/commit-at-2'],
      rungs: ['R3'],
      seeds: [2000],
      r3: { end: 'stream-end' },
    });
    const [plain] = expandSweep(base);
    if (!plain) throw new Error('empty sweep');
    const { classes, commits, creditedTurns } = coreExpectation(plain);
    const [first, second] = commits;
    if (!first || !second) throw new Error('seed 2000 has fewer than two commitments');
    const heldAt = (t: number) => commits.some((c) => c.t < t && c.classId === classes[t - 1]);
    const unheldAfter = (after: number) =>
      classes.findIndex((_, i) => i + 1 > after && !heldAt(i + 1) && !commits.some((c) => c.t === i + 1)) + 1;
    const cross = unheldAfter(first.t);
    const hand = unheldAfter(cross);
    const config = parseSweepConfig({
      name: 'r3-faults',
      models: [`policy/commit-at-2?cross=${cross}&hand=${hand}&broken=${second.t}`],
      rungs: ['R3'],
      seeds: [2000],
      r3: { end: 'stream-end' },
    });
    const runDir = join(temporal.dir, 'r3-faults');
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const summary = await summaryOf(runDir, spec!);
    const transcript = await transcriptOf(runDir, spec!);
    const turnAt = (t: number) => summary.script?.turns.find((turn) => turn.t === t);
    expect(turnAt(cross)).toMatchObject({ action: 'run-refused', credited: false });
    expect(transcript.executions.has(cross)).toBe(false);
    expect(transcript.records.some((r) => r.type === 'execution-start' && r.t === cross)).toBe(false);
    expect(turnAt(hand)).toMatchObject({ action: 'answer', credited: true });
    expect(turnAt(second.t)).toMatchObject({ action: 'write', scriptId: 's2', credited: false, scriptReturned: false });
    expect(transcript.executions.get(second.t)?.outcome).toMatchObject({ ok: false, kind: 'throw' });
    const brokenClass = second.classId;
    const expectedCredited = [...creditedTurns.filter((t) => classes[t - 1] !== brokenClass), hand].sort((a, b) => a - b);
    expect(summary.script?.turns.filter((turn) => turn.credited).map((turn) => turn.t)).toEqual(expectedCredited);
    expect(summary.script?.metrics).toMatchObject({ crossClassRunsRefused: 1, rawCorrect: 1, builds: 3 });
    const shown = scriptExchanges(transcript, spec!.budget)[cross - 1];
    expect(shown?.toolResults[0]?.content).toMatch(/^Refused: script s\d was written for a different type of problem\. It was not run\.$/);
    expect(scriptExchanges(transcript, spec!.budget)[second.t - 1]?.toolResults[0]?.content).toContain('failed (throw)');
  });

  it('replay deterministically from their recorded histories', async () => {
    const connection = await Connection.connect({ address: temporal.server.address });
    try {
      const histories = new Client({ connection }).workflow
        .list({ query: 'WorkflowType = "sessionWorkflow" AND Rung = "R3"' })
        .intoHistories();
      let replayed = 0;
      for await (const result of Worker.runReplayHistories({ workflowsPath: workflowsPath() }, histories)) {
        expect(result.error, result.workflowId).toBeUndefined();
        replayed++;
      }
      expect(replayed).toBe(12);
    } finally {
      await connection.close();
    }
  });
});

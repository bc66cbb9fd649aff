import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { systemPrompt } from '../../core/rungs/system-prompt.js';
import { toolSpecs } from '../../core/rungs/tools.js';
import { runSession } from '../../core/session/run-session.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { framingOf, sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { commitAtK } from '../../core/policies/commit-at-k.js';
import { writeReport } from '../../analysis/report/write-report.js';
import { auditRun } from '../../analysis/audit-report.js';
import { readRunResults } from '../../analysis/run-results.js';
import { resultsTable } from '../../cli/print-results.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { replayRecordedHistories, serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

/*
 * The split agent (issue 24, items 3 and 4) played by the reference policies
 * through Temporal: a wait-for-one-repeat planner (policy/commit-at-2) asked
 * as at R1, and the same policy as the builder, which writes the reference
 * script on each claimed type, runs it and submits what it returned. Scripts
 * run in the sandbox worker process.
 */

const temporal = serverForThisFile();

/** What the core's R1 engine does with the planner's policy on the session's stream. */
function r1Expectation(spec: SessionSpec) {
  const classes = generateStream(spec.seed, spec.stream).items.map((item) => FAMILY_NAMES.indexOf(item.family));
  const record = runSession(classes, { budget: spec.budget, charge: 0, classCount: 8 }, commitAtK(2));
  const claims = record.decisions.filter((d) => d.action === 'commit');
  const handed = classes.flatMap((classId, index) => (claims.some((c) => c.classId === classId && c.t <= index + 1) ? [index + 1] : []));
  return { classes, record, claims, handed, metrics: sessionMetrics(record) };
}

const attemptsOf = (records: readonly { type: string }[]) => records.filter((r): r is AttemptRecord => r.type === 'attempt');

describe('the split agent at R3 on a real Temporal server, reference policies as planner and builder', () => {
  it('keeps the planner’s reserve (first-sight 0%) while the builder answers every handed problem with a correct script', async () => {
    const config = parseSweepConfig({
      name: 'r3-split',
      agent: { kind: 'split', planner: 'policy/commit-at-2?cost=0.01', builder: 'policy/commit-at-2?cost=0.02' },
      rungs: ['R3'],
      announceN: [true],
      seeds: [2000, 2001],
      r3: { end: 'stream-end' },
      tokenCap: 10_000_000,
      window: 2,
    });
    const runDir = join(temporal.dir, 'r3-split');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 2, failed: 0, mechanicalFailures: 0 });
    const costs = await openRunStore(runDir).readCosts();
    for (const spec of expandSweep(config)) {
      const key = sessionKey(spec);
      expect(key).toMatch(/\/R3\/split\/policy\/commit-at-2\?cost=0\.02\//);
      const expected = r1Expectation(spec);
      const summary = await summaryOf(runDir, spec);
      const transcript = await transcriptOf(runDir, spec);
      expect(summary.termination, key).toBe('stream-end');

      // The planner was asked exactly R1's turns, with R1's system prompt, tools and turn messages, and claimed where R1 does.
      const r1Framing = framingOf({ ...spec, rung: 'R1', agent: undefined });
      expect(transcript.start?.planner).toEqual({ system: systemPrompt(r1Framing), tools: toolSpecs(r1Framing) });
      expect(transcript.start?.tools.map((tool) => tool.name)).toContain('write_script');
      expect(transcript.start?.system).toMatch(/planner alone decides which types are worth a script/);
      expect(transcript.turns.map((turn) => [turn.t, turn.decision.action])).toEqual(expected.record.decisions.map((d) => [d.t, d.action]));
      expect(transcript.turns.every((turn) => /^(Since|Problem \d+ of 60 \(only decide)/.test(turn.user))).toBe(true);

      // The builder saw only the problems of claimed types, from each claim on: write on the claim, then run and submit.
      expect([...new Set(transcript.steps.map((step) => step.t))]).toEqual(expected.handed);
      const writes = transcript.steps.filter((step) => step.outcomes.some((o) => o.kind === 'written')).map((step) => step.t);
      expect(writes).toEqual(expected.claims.map((c) => c.t));
      expect(transcript.steps.filter((step) => step.submitted?.correct).map((step) => step.t)).toEqual(expected.handed);

      // Allocation measured on the planner's claims: it kept its reserve; the builder's work is correct.
      expect(summary.metrics).toMatchObject({
        commitments: spec.budget,
        firstSightCommitments: 0,
        firstSightRate: 0,
        firstSightHazard: 0,
        firstOccurrenceTurns: expected.metrics.firstOccurrenceTurns,
        totalLateness: expected.metrics.totalLateness,
        utility: expected.handed.length,
        unresolved: 0,
      });
      expect(summary.script?.metrics).toMatchObject({
        builds: spec.budget,
        scriptSuccessRate: 1,
        scriptRuns: expected.handed.length,
        answeredCorrectly: expected.handed.length,
        rawAnswers: 0,
        playedTurns: 60,
        modelCalls: 3 * spec.budget + 2 * (expected.handed.length - spec.budget),
        crossClassRunsRefused: 0,
        writesRefused: 0,
      });

      // Every call is audited and costed under its role: one attempt per planner turn and per builder call.
      const attempts = attemptsOf(transcript.records);
      const planner = attempts.filter((a) => a.role === 'planner');
      const builder = attempts.filter((a) => a.role === 'builder');
      expect(planner.map((a) => a.t)).toEqual(transcript.turns.map((turn) => turn.t));
      expect(builder.map((a) => a.t)).toEqual(transcript.steps.map((step) => step.call));
      expect(planner.length + builder.length).toBe(attempts.length);
      const mine = costs.filter((entry) => entry.session === key);
      expect(mine.filter((entry) => entry.role === 'planner').map((entry) => entry.t)).toEqual(planner.map((a) => a.t));
      expect(mine.filter((entry) => entry.role === 'builder').map((entry) => entry.costUsd)).toEqual(builder.map(() => 0.02));
      expect(summary.costUsd).toBeCloseTo(0.01 * planner.length + 0.02 * builder.length, 9);
    }

    // The run's table names the split agent, with the planner's first-sight and the builder's script success.
    const results = await readRunResults(runDir);
    expect(results.cells).toHaveLength(1);
    expect(results.cells[0]).toMatchObject({ model: 'policy/commit-at-2?cost=0.01', builder: 'policy/commit-at-2?cost=0.02' });
    expect(results.cells[0]?.pooled?.firstSight).toBe(0);
    expect(results.cells[0]?.script?.scriptSuccessRate).toBe(1);
    expect(resultsTable(results)).toMatch(/split: planner policy\/commit-at-2\?cost=0\.01, builder policy\/commit-at-2\?cost=0\.02/);
  });

  it('audits a planner’s retried turn under its role and ends right after the builder’s B-th write', async () => {
    const config = parseSweepConfig({
      name: 'r3-split-retry',
      agent: { kind: 'split', planner: 'policy/commit-at-2?transport=1x1', builder: 'policy/commit-at-2' },
      rungs: ['R3'],
      seeds: [2000],
    });
    const runDir = join(temporal.dir, 'r3-split-retry');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 1, failed: 0 });
    const [spec] = expandSweep(config) as [SessionSpec];
    const expected = r1Expectation(spec);
    const summary = await summaryOf(runDir, spec);
    const transcript = await transcriptOf(runDir, spec);
    const lastClaim = expected.claims.at(-1)?.t;
    expect(summary.termination).toBe('budget-exhausted');
    expect(transcript.steps.at(-1)).toMatchObject({ t: lastClaim, outcomes: [{ kind: 'written' }] });
    expect(transcript.attemptsSinceResume(1, 'planner').map((a) => a.outcome)).toEqual(['transport-error', 'ok']);
    expect(transcript.attemptsSinceResume(1, 'builder').map((a) => a.outcome)).not.toContain('transport-error');
    const audit = await auditRun(runDir);
    expect(audit.turns).toEqual([expect.objectContaining({ t: 1, role: 'planner', decision: 'pass' })]);
    expect(audit.turns[0]?.attempts.map((a) => a.outcome)).toEqual(['transport-error', 'ok']);
    expect(summary.attempts).toMatchObject({ transportErrors: 1, retriedTurns: 1 });
    // Claims after the session ended would be passes: the replay counts every first occurrence.
    expect(summary.metrics).toMatchObject({ commitments: 3, firstSightCommitments: 0, truncated: 0 });
  });

  it('stand beside the single agent at R3 in the report: the planner keeps its reserve, the builder scripts as the single agent does', async () => {
    const settings = { rungs: ['R3'], seeds: [2002, 2003], r3: { end: 'stream-end' }, tokenCap: 10_000_000, window: 2 };
    const single = parseSweepConfig({ name: 'r3-single', models: ['policy/commit-at-2'], ...settings });
    const split = parseSweepConfig({
      name: 'r3-split-beside',
      agent: { kind: 'split', planner: 'policy/commit-at-2', builder: 'policy/commit-at-2' },
      ...settings,
    });
    const [singleDir, splitDir] = [join(temporal.dir, 'r3-single'), join(temporal.dir, 'r3-split-beside')];
    await sweepOn(temporal.server, single, singleDir);
    await sweepOn(temporal.server, split, splitDir);
    const out = join(temporal.dir, 'split-report');
    const report = await writeReport([singleDir, splitDir], out);
    expect(report.tables).toContain('r3-split');
    const [header, ...rows] = readFileSync(join(out, 'tables', 'r3-split.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const columns = (header ?? '').split(',');
    expect(rows).toHaveLength(1);
    const row = Object.fromEntries((rows[0] ?? '').split(',').map((value, i) => [columns[i], value]));
    expect(row).toMatchObject({
      Model: 'policy/commit-at-2',
      Builder: 'policy/commit-at-2',
      Seeds: '2',
      'Paired seeds': '2',
      'First-sight single R3': '0',
      'First-sight split': '0',
      'First-sight split−single': '0',
      'Hazard split': '0',
      'Commits/seed split': '3',
      'Script success single R3': '1',
      'Script success split': '1',
    });
    // The reference builder answers only the claimed types in both: the same problems, here all by script.
    expect(row['Answered correctly split']).toBe(row['Answered correctly single R3']);
    // The ladder's R3 stays the single agent's; the R3 table names the split agent apart.
    const builds = readFileSync(join(out, 'tables', 'r3-builds.md'), 'utf8');
    expect(builds).toMatch(/split: planner policy\/commit-at-2, builder policy\/commit-at-2/);
    expect(builds).toMatch(/policy\/commit-at-2 \(single agent\)/);
  });

  it('replay deterministically from their recorded histories', async () => {
    const replayed = await replayRecordedHistories(temporal.server, 'WorkflowType = "sessionWorkflow" AND Rung = "R3"');
    expect(replayed).toBe(7);
  });
});

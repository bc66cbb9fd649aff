import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { auditRun } from '../../analysis/audit-report.js';
import { readRunResults } from '../../analysis/run-results.js';
import { decisionTurns, serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/** A one-session sweep of commit-at-2 at R1 on seed 2000 with the given fault options. */
function faultySpec(name: string, faults: string, extra: Record<string, unknown> = {}) {
  const config = parseSweepConfig({ name, models: [`policy/commit-at-2?${faults}`], rungs: ['R1'], seeds: [2000], ...extra });
  const [spec] = expandSweep(config);
  if (!spec) throw new Error('empty sweep');
  return { config, spec };
}

const faulty = (name: string, faults: string, extra: Record<string, unknown> = {}) => ({
  ...faultySpec(name, faults, extra),
  runDir: join(temporal.dir, name),
});

// The first decision turns of seed 2000 (the faults are keyed by turn).
const [first, second, third, fourth] = decisionTurns(faultySpec('turns', '').spec) as [number, number, number, number];
const seconds = (a: AttemptRecord, b: AttemptRecord) => (Date.parse(b.at) - Date.parse(a.at)) / 1000;

describe('rerun rules (paper B.6)', () => {
  it('retry transport errors twice, 1.5 s then 3 s later, recording every attempt', async () => {
    const { config, spec, runDir } = faulty('transport', `transport=${first}x2,${third}x3`);
    await sweepOn(temporal.server, config, runDir);
    const transcript = await transcriptOf(runDir, spec);
    const atFirst = transcript.attemptsSinceResume(first);
    expect(atFirst.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'transport-error'],
      [2, 'transport-error'],
      [3, 'ok'],
    ]);
    const [a1, a2, a3] = atFirst as [AttemptRecord, AttemptRecord, AttemptRecord];
    // Each delay is at least the rule's; the slack allows for a loaded machine.
    expect(seconds(a1, a2)).toBeGreaterThanOrEqual(1.5);
    expect(seconds(a1, a2)).toBeLessThan(1.5 + 5);
    expect(seconds(a2, a3)).toBeGreaterThanOrEqual(3);
    expect(seconds(a2, a3)).toBeLessThan(3 + 5);
    // Three failures exhaust the budget: a mechanical failure, and the rest of the session is truncated.
    expect(transcript.attemptsSinceResume(third).map((a) => a.outcome)).toEqual(['transport-error', 'transport-error', 'transport-error']);
    const summary = await summaryOf(runDir, spec);
    expect(summary).toMatchObject({
      termination: 'transport-exhausted',
      mechanicalFailure: true,
      attempts: { transportErrors: 5, retriedTurns: 2 },
    });
    expect(summary.decisions.filter((d) => d.t >= third).every((d) => d.failure === 'truncated')).toBe(true);
    expect((await readRunResults(runDir)).states.failed).toBe(1);
  });

  it('run a mechanically failed session again as a replacement run, resuming from its recorded turns', async () => {
    const { config, spec, runDir } = faulty('transport', `transport=${first}x2,${third}x3`);
    const before = (await transcriptOf(runDir, spec)).turns.length;
    await sweepOn(temporal.server, config, runDir);
    const transcript = await transcriptOf(runDir, spec);
    expect(transcript.records.filter((r) => r.type === 'resume')).toHaveLength(1);
    // The turns before the failure were not asked again; the failing turn was, three more times.
    expect(transcript.turns).toHaveLength(before);
    expect(transcript.attemptsSinceResume(third)).toHaveLength(3);
    expect(transcript.records.filter((r) => r.type === 'attempt' && r.t === first)).toHaveLength(3);
  });

  it('stop on a permanent provider error without retrying', async () => {
    const { config, spec, runDir } = faulty('permanent', `permanent=${second}`);
    await sweepOn(temporal.server, config, runDir);
    const transcript = await transcriptOf(runDir, spec);
    expect(transcript.attemptsSinceResume(second).map((a) => a.outcome)).toEqual(['permanent-error']);
    expect(await summaryOf(runDir, spec)).toMatchObject({ termination: 'provider-error', mechanicalFailure: true });
  });

  it('record model-level failures as unparsed turns, never retried, and flag the rung invalid above 10%', async () => {
    const { config, spec, runDir } = faulty(
      'model-failures',
      `reply=${first}:no-decision,${second}:cut-off,${third}:unknown-function,${fourth}:several-decisions`,
    );
    await sweepOn(temporal.server, config, runDir);
    const transcript = await transcriptOf(runDir, spec);
    const decisionAt = (t: number) => transcript.turns.find((turn) => turn.t === t)?.decision;
    for (const [t, failure] of [
      [first, 'no-decision'],
      [second, 'cut-off'],
      [third, 'unknown-function'],
    ] as const) {
      expect(transcript.attemptsSinceResume(t)).toHaveLength(1);
      expect(decisionAt(t)).toMatchObject({ action: 'pass', resolved: false, failure });
    }
    // Two decisive calls (last, as the commit changes the turns after it): the first (claim) applies, and the turn still counts as unparsed.
    expect(transcript.attemptsSinceResume(fourth)).toHaveLength(1);
    expect(decisionAt(fourth)).toMatchObject({ action: 'commit', failure: 'several-decisions' });
    // The cut-off reply was not asked again, and its attempt says why it ended.
    expect(transcript.attemptsSinceResume(second).map((a) => [a.outcome, a.stopReason])).toEqual([['ok', 'length']]);
    const summary = await summaryOf(runDir, spec);
    expect(summary).toMatchObject({ termination: 'stream-end', mechanicalFailure: false });
    expect(summary.metrics.unresolved).toBe(4);
    const [cell] = (await readRunResults(runDir)).cells;
    expect(cell?.invalid).toBe(true);
    const audit = await auditRun(runDir);
    expect(audit.cutOffTurns).toBe(1);
    expect(audit.turns.find((turn) => turn.t === second)?.decision).toMatch(/cut off/);
  });

  it('stop a session at its cost cap (the per-seed unit cap)', async () => {
    // Each call reports $0.25; the cap of $1 is reached after four calls, so the fifth is never made.
    const { config, spec, runDir } = faulty('cost-cap', 'cost=0.25', { unitCap: 1 });
    await sweepOn(temporal.server, config, runDir);
    const summary = await summaryOf(runDir, spec);
    expect(summary).toMatchObject({ termination: 'cost-cap', costUsd: 1, attempts: { total: 4 } });
    expect(summary.metrics.truncated).toBeGreaterThan(0);
  });

  it('stop a session at its token cap, truncating the decisions it never reached', async () => {
    const { config, spec, runDir } = faulty('token-cap', '', { tokenCap: 600 });
    await sweepOn(temporal.server, config, runDir);
    const summary = await summaryOf(runDir, spec);
    expect(summary.termination).toBe('token-cap');
    expect(summary.usage.inputTokens + summary.usage.outputTokens).toBeGreaterThanOrEqual(600);
    expect(summary.metrics.truncated).toBeGreaterThan(0);
    expect(summary.metrics.unresolved).toBe(0);
  });
});

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { freePort } from '../../infra/ports.js';
import { readManifest } from '../../run-store/manifest.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { runCli } from '../cli/run-cli.js';
import { decisionsOf, inProcessDecisions, summaryOf, transcriptOf } from './harness.js';

/*
 * A run cost cap stops a run cleanly, as a state of its own: the command exits
 * 3 and lists the sessions it stopped, the table prints no Score for them,
 * status counts them stopped and analyze leaves them out, naming them. The cap
 * is a limit of the invocation: the same command with a higher cap goes on
 * with every session from its last recorded turn, paying for no turn twice,
 * to the decisions an uninterrupted run makes. Real CLI processes, each with
 * its embedded Temporal server.
 */

const dir = mkdtempSync(join(tmpdir(), 'allocbench-caps-'));
const PER_CALL_USD = 0.01;
const WINDOW = 2;
const model = `policy/commit-at-2?cost=${PER_CALL_USD}`;

async function run(cap: number, out: string) {
  const args = ['run', '--model', model, '--rung', 'R1', '--seeds', '2000-2003', '--window', String(WINDOW), '--out', out];
  return runCli(...args, '--cap', String(cap), '--temporal-port', String(await freePort()));
}

describe('a run cost cap', () => {
  it('stops the run as its own state, and the same command with a higher cap goes on from where each session stopped', async () => {
    const runDir = join(dir, 'capped');
    const cap = 0.05;
    const stopped = await run(cap, runDir);
    expect(stopped.status, stopped.stderr).toBe(3);
    const { config, experimentHash } = await readManifest(openRunStore(runDir));
    const specs = expandSweep(config);
    for (const spec of specs) expect(stopped.stderr).toContain(`${sessionKey(spec)} (stopped by a cost cap: run-cost-cap)`);
    expect(stopped.stderr).toContain('0/4 sessions finished; 4 stopped by a cost cap.');
    expect(stopped.stderr).toMatch(/need a higher --cap .*: npx allocbench run --model 'policy\/commit-at-2\?cost=0\.01' --rung R1/);
    const row = stopped.stdout.split('\n').find((line) => line.startsWith(model)) ?? '';
    expect(row).toMatch(/0\/4\s+–\s+–\s+–\s+–/); // sessions, items/stream, Score, online Score, online regret
    expect(row).toMatch(/4 stopped by the cap$/);
    expect(row).not.toMatch(/\bok$|%/);

    // The overshoot is bounded: the calls under way when the cap was reached, at most one per session in flight.
    const spent = await openRunStore(runDir).runCostUsd();
    expect(spent).toBeGreaterThanOrEqual(cap);
    expect(spent).toBeLessThanOrEqual(cap + WINDOW * PER_CALL_USD + 1e-9);

    const status = runCli('status', runDir, '--json');
    expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ finished: 0, stopped: 4, inFlight: 0, waiting: 0 });
    const report = runCli('analyze', runDir, '--out', join(dir, 'report'), '--json');
    expect(report.status, report.stderr).toBe(0);
    const analyzed = JSON.parse(report.stdout) as { sessions: number; excluded: { what: string; reason: string }[] };
    expect(analyzed.sessions).toBe(0);
    for (const spec of specs)
      expect(analyzed.excluded).toContainEqual({
        what: `${config.name}: ${sessionKey(spec)}`,
        reason: 'stopped by a cost cap (run-cost-cap); running the sweep again goes on with it',
      });
    const turnsBefore = await Promise.all(specs.map(async (spec) => (await transcriptOf(runDir, spec)).turns.length));

    const resumed = await run(1, runDir);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('4/4 sessions finished.');
    const manifest = await readManifest(openRunStore(runDir));
    expect(manifest.experimentHash).toBe(experimentHash);
    expect(manifest.config.runCap).toBe(1);
    for (const [i, spec] of specs.entries()) {
      const summary = await summaryOf(runDir, spec);
      expect(summary.termination).toBe('stream-end');
      expect(decisionsOf(summary), sessionKey(spec)).toEqual(inProcessDecisions(spec));
      const transcript = await transcriptOf(runDir, spec);
      const paid = transcript.records.flatMap((record) => (record.type === 'attempt' ? [record.t] : []));
      expect(paid, `${sessionKey(spec)}: no turn paid twice`).toEqual([...new Set(paid)]);
      expect(transcript.turns.length).toBeGreaterThanOrEqual(turnsBefore[i] ?? 0);
    }
    const ledger = readFileSync(join(runDir, 'costs.jsonl'), 'utf8').trim().split('\n');
    const attempts = (await Promise.all(specs.map(async (spec) => (await transcriptOf(runDir, spec)).turns.length))).reduce(
      (a, b) => a + b,
    );
    expect(ledger).toHaveLength(attempts);
  });
});

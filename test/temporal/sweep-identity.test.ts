import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { runLayout } from '../../run-store/run-layout.js';
import { runCliAsync } from '../cli/run-cli.js';
import { gate, startLoopback } from '../activities/providers/loopback.js';
import { chatCompletion } from '../activities/providers/wire.js';
import { serverForThisFile } from './harness.js';
import { exited, killGroup, startCli, until } from './processes.js';

/*
 * On a shared cluster, two runs of the same sweep name must not share
 * workflows: the ids carry the experiment hash, so another run's sweep gets
 * its own, and a run of the same sweep into another directory is refused
 * while the first one runs. Real CLI processes against a real Temporal server.
 */

const temporal = serverForThisFile();
const started: { kill: () => void }[] = [];
afterEach(() => {
  for (const process of started.splice(0)) process.kill();
});

function sweepFile(dir: string, name: string, raw: Record<string, unknown>) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(raw));
  return { file, config: parseSweepConfig(raw) };
}

/** A local model that passes every decision, each reply held until the gate opens: a run on it stays running as long as the test needs. */
async function gatedModel(held: { readonly opened: Promise<void> }) {
  return startLoopback((request) =>
    request.path.endsWith('/models')
      ? { json: { object: 'list', data: [] } }
      : { json: chatCompletion({ content: 'DECISION: PASS' }, {}, 'gated'), after: held.opened },
  );
}

const finished = (runDir: string, config: ReturnType<typeof parseSweepConfig>) =>
  expandSweep(config).filter((spec) => existsSync(runLayout.summary(runDir, spec))).length;

describe('sweep workflow ids carry the run identity', () => {
  it('runs a same-named sweep with other settings as its own workflows, and refuses the same sweep into another directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-identity-'));
    const env = temporal.env;
    const rungs = ['R0'];
    // The first run waits on a model that holds its replies, so it is still running while the others start.
    const replies = gate();
    const gated = await gatedModel(replies);
    started.push({ kill: () => void gated.close() });
    const a = sweepFile(dir, 'a', { name: 'shared', models: [`openai-compatible/gated@${gated.url}/v1`], rungs, seeds: [2000, 2001] });
    const b = sweepFile(dir, 'b', { name: 'shared', models: ['policy/eager'], rungs, seeds: [2002, 2003] });
    const [runA, runB, runC] = ['a', 'b', 'c'].map((name) => join(dir, `run-${name}`)) as [string, string, string];

    const first = startCli(['sweep', a.file, '--out', runA], env);
    started.push({ kill: () => killGroup(first) });
    await until(() => existsSync(runLayout.transcript(runA, expandSweep(a.config)[0]!)), 120_000, 'the first run to start a session');

    // The same sweep (same name and settings) into another directory would attach to the first run's workflow.
    // (Every command beside it runs without blocking this process, which serves the gated model.)
    const same = await runCliAsync(env, ['sweep', a.file, '--out', runC]);
    expect(same.status, same.stderr).toBe(2);
    expect(same.stderr).toMatch(new RegExp(`workflow sweep/shared@[0-9a-f]{12} is running for run directory ${runA}, not ${runC}`));
    expect(finished(runC, a.config)).toBe(0);

    // A sweep of the same name with other settings runs its own sessions, into its own directory.
    const other = await runCliAsync(env, ['sweep', b.file, '--out', runB]);
    expect(other.status, other.stderr).toBe(0);
    expect(finished(runB, b.config)).toBe(2);
    expect(first.exitCode, 'the first run was still running').toBeNull();

    // status counts each run's own running sessions.
    const status = await runCliAsync(env, ['status', runA, runB, '--json']);
    const runs = (JSON.parse(status.stdout) as { runs: { runDir: string; running: number }[] }).runs;
    expect(runs.find((run) => run.runDir === runB)?.running).toBe(0);
    expect(runs.find((run) => run.runDir === runA)?.running).toBeGreaterThan(0);

    replies.open();
    expect(await exited(first), first.output()).toBe(0);
    expect(finished(runA, a.config)).toBe(2);
  });
});

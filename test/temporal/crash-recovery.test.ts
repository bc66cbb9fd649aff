import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { runLayout } from '../../run-store/run-layout.js';
import { readTranscriptFile } from '../../run-store/fs-run-store.js';
import { freePort } from '../../infra/ports.js';
import { decisionsOf, inProcessDecisions, summaryOf } from './harness.js';
import { startTestServer } from './test-servers.js';
import { exited, killGroup, startCli, until } from './processes.js';

const started: { kill: () => void }[] = [];
afterAll(() => started.forEach((s) => s.kill()));

function sweepFile(dir: string, raw: Record<string, unknown>): { file: string; config: SweepConfig } {
  const file = join(dir, 'sweep.json');
  writeFileSync(file, JSON.stringify(raw));
  return { file, config: parseSweepConfig(raw) };
}

async function recordedTurns(runDir: string, config: SweepConfig): Promise<number> {
  const transcripts = await Promise.all(expandSweep(config).map((spec) => readTranscriptFile(runLayout.transcript(runDir, spec))));
  return transcripts.reduce((sum, t) => sum + t.turns.length, 0);
}

/** Every session finished, with exactly one turn record per decision turn and the core's decisions. */
async function expectCompleteAndExact(runDir: string, config: SweepConfig): Promise<void> {
  for (const spec of expandSweep(config)) {
    const summary = await summaryOf(runDir, spec);
    const expected = inProcessDecisions(spec);
    expect(decisionsOf(summary), sessionKey(spec)).toEqual(expected);
    const transcript = await readTranscriptFile(runLayout.transcript(runDir, spec));
    const turnLines = transcript.records.filter((r) => r.type === 'turn').map((r) => (r.type === 'turn' ? r.t : 0));
    expect(turnLines, `${sessionKey(spec)}: one turn record per decision`).toEqual(expected.map((d) => d.t));
  }
}

describe('crash recovery', () => {
  it('resumes a session whose worker was killed mid-session, on a new worker, with no lost or duplicated turns', async () => {
    const { server, dir } = await startTestServer();
    started.push({ kill: () => void server.stop() });
    const env = { TEMPORAL_ADDRESS: server.address };
    const { file, config } = sweepFile(dir, {
      name: 'worker-kill',
      models: ['policy/commit-at-2?delay=120'],
      rungs: ['R1'],
      seeds: [2000, 2001, 2002, 2003],
      heartbeatSeconds: 2,
    });
    const runDir = join(dir, 'run');
    const firstWorker = startCli(['worker'], env);
    started.push({ kill: () => killGroup(firstWorker) });
    await until(() => firstWorker.output().includes('allocbench worker on'), 30_000, 'the first worker');
    const sweep = startCli(['sweep', file, '--no-worker', '--out', runDir, '--json'], env);
    started.push({ kill: () => killGroup(sweep) });
    await until(async () => (await recordedTurns(runDir, config)) >= 6, 60_000, 'some recorded turns');
    killGroup(firstWorker);
    const turnsAtKill = await recordedTurns(runDir, config);
    const secondWorker = startCli(['worker'], env);
    started.push({ kill: () => killGroup(secondWorker) });
    expect(await exited(sweep)).toBe(0);
    secondWorker.kill('SIGTERM');
    expect(await exited(secondWorker)).toBe(0);
    expect(turnsAtKill).toBeLessThan(expandSweep(config).reduce((sum, spec) => sum + inProcessDecisions(spec).length, 0));
    await expectCompleteAndExact(runDir, config);
    await server.stop();
  }, 180_000);

  it('continues a sweep from its SQLite file after the CLI and its embedded server were killed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-restart-'));
    const { file, config } = sweepFile(dir, {
      name: 'restart',
      models: ['policy/eager?delay=60', 'policy/commit-at-2?delay=60'],
      rungs: ['R0'],
      seeds: [2000, 2001, 2002, 2003, 2004, 2005],
      window: 2,
    });
    const runDir = join(dir, 'run');
    const port = String(await freePort());
    const args = ['sweep', file, '--out', runDir, '--temporal-port', port, '--json'];
    const first = startCli(args);
    started.push({ kill: () => killGroup(first) });
    const summaries = () => expandSweep(config).filter((spec) => existsSync(runLayout.summary(runDir, spec))).length;
    await until(() => summaries() >= 2, 90_000, 'the first finished sessions');
    killGroup(first);
    await exited(first);
    const finishedAtKill = summaries();
    expect(finishedAtKill).toBeLessThan(expandSweep(config).length);
    const second = startCli(args);
    started.push({ kill: () => killGroup(second) });
    expect(await exited(second), second.output()).toBe(0);
    expect(JSON.parse(second.output().slice(second.output().indexOf('{'))).sessions).toBe(expandSweep(config).length);
    await expectCompleteAndExact(runDir, config);
    // Complete: the embedded server's files are gone, and the run store alone answers a second run of the sweep.
    expect(existsSync(runLayout.temporal(runDir))).toBe(false);
    const summaryBytes = expandSweep(config).map((spec) => readFileSync(runLayout.summary(runDir, spec), 'utf8'));
    const again = startCli([...args, '--keep-history']);
    started.push({ kill: () => killGroup(again) });
    expect(await exited(again), again.output()).toBe(0);
    expect(expandSweep(config).map((spec) => readFileSync(runLayout.summary(runDir, spec), 'utf8'))).toEqual(summaryBytes);
    expect(existsSync(join(runLayout.temporal(runDir), 'dev.sqlite'))).toBe(true);
  }, 180_000);
});

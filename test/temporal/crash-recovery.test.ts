import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { runLayout } from '../../run-store/run-layout.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { freePort } from '../../infra/ports.js';
import { KEEPER_ACTIVITY_TYPE } from '../../protocol/activities.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { s3ServerForThisFile } from '../run-store/s3-server.js';
import { decisionsOf, inProcessDecisions, summaryOf, sweepOn } from './harness.js';
import { startTestServer } from './test-servers.js';
import { exited, killGroup, startCli, until } from './processes.js';

const started: { kill: () => void }[] = [];
const s3 = s3ServerForThisFile();
afterAll(() => started.forEach((s) => s.kill()));

function sweepFile(dir: string, raw: Record<string, unknown>): { file: string; config: SweepConfig } {
  const file = join(dir, 'sweep.json');
  writeFileSync(file, JSON.stringify(raw));
  return { file, config: parseSweepConfig(raw) };
}

async function recordedTurns(runDir: string, config: SweepConfig): Promise<number> {
  const store = openRunStore(runDir);
  const transcripts = await Promise.all(
    expandSweep(config).map(async (spec) => ((await store.hasTranscript(spec)) ? store.readTranscript(spec) : undefined)),
  );
  return transcripts.reduce((sum, t) => sum + (t?.turns.length ?? 0), 0);
}

/** What a session measured: its summary but when it finished. */
const measured = (summary: SessionSummary) => ({ ...summary, finishedAt: undefined });

/** The attempt at which the sweep's keeper completed, from the sweep's history. */
async function keeperAttempts(address: string, config: SweepConfig): Promise<number | undefined> {
  const connection = await Connection.connect({ address });
  try {
    const events = (await new Client({ connection }).workflow.getHandle(sweepWorkflowId(config)).fetchHistory()).events ?? [];
    const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === KEEPER_ACTIVITY_TYPE);
    const started = events.find(
      (event) => Number(event.activityTaskStartedEventAttributes?.scheduledEventId) === Number(scheduled?.eventId),
    );
    return started?.activityTaskStartedEventAttributes?.attempt ?? undefined;
  } finally {
    await connection.close();
  }
}

/** The pid of the worker process running the sweep's keeper (a worker's identity is pid@host), once one does. */
async function keeperWorker(address: string, config: SweepConfig): Promise<number> {
  const connection = await Connection.connect({ address });
  try {
    const sweep = new Client({ connection }).workflow.getHandle(sweepWorkflowId(config));
    let identity: string | undefined;
    await until(
      async () => {
        const { raw } = await sweep.describe().catch(() => ({ raw: { pendingActivities: [] } }));
        identity =
          raw.pendingActivities?.find((activity) => activity.activityType?.name === KEEPER_ACTIVITY_TYPE)?.lastWorkerIdentity ?? undefined;
        return Boolean(identity);
      },
      60_000,
      'the keeper to start',
    );
    return Number(identity?.split('@')[0]);
  } finally {
    await connection.close();
  }
}

/** Every session finished, with exactly one turn record per decision turn and the core's decisions. */
async function expectCompleteAndExact(runDir: string, config: SweepConfig): Promise<void> {
  for (const spec of expandSweep(config)) {
    const summary = await summaryOf(runDir, spec);
    const expected = inProcessDecisions(spec);
    expect(decisionsOf(summary), sessionKey(spec)).toEqual(expected);
    const transcript = await openRunStore(runDir).readTranscript(spec);
    const turnLines = transcript.records.filter((r) => r.type === 'turn').map((r) => (r.type === 'turn' ? r.t : 0));
    expect(turnLines, `${sessionKey(spec)}: one turn record per decision`).toEqual(expected.map((d) => d.t));
  }
}

describe('crash recovery', () => {
  it('on a cluster on one machine (its own server, two workers, the run on S3), loses the worker running the sweep’s keeper mid-sweep and gives every session as an undisturbed run does', async () => {
    const { server, dir } = await startTestServer();
    started.push({ kill: () => void server.stop() });
    const env = { TEMPORAL_ADDRESS: server.address, ...s3.server.env };
    const settings = {
      name: 'worker-kill',
      models: ['policy/commit-at-2?delay=120'],
      rungs: ['R1'],
      seeds: [2000, 2001, 2002, 2003],
      window: 4,
      heartbeatSeconds: 2,
    };
    const { file, config } = sweepFile(dir, settings);
    // The undisturbed run: the same sweep, another name (its own workflows), on disk with workers in this process.
    const undisturbed = parseSweepConfig({ ...settings, name: 'undisturbed' });
    await sweepOn(server, undisturbed, join(dir, 'undisturbed'));

    const runDir = `${await s3.server.bucket('cluster')}/worker-kill`;
    const workers = [startCli(['worker'], env), startCli(['worker'], env)];
    for (const worker of workers) started.push({ kill: () => killGroup(worker) });
    await until(() => workers.every((worker) => worker.output().includes('allocbench worker on')), 120_000, 'two workers');
    const sweep = startCli(['sweep', file, '--no-worker', '--out', runDir, '--json'], env);
    started.push({ kill: () => killGroup(sweep) });
    // The keeper's worker is the one to lose: the sessions it started go on elsewhere, and the keeper, run again, follows them.
    const keeper = await keeperWorker(server.address, config);
    await until(async () => (await recordedTurns(runDir, config)) >= 6, 120_000, 'some recorded turns');
    const doomed = workers.find((worker) => worker.pid === keeper);
    if (!doomed) throw new Error(`no worker of pid ${keeper} runs the keeper`);
    killGroup(doomed);
    const turnsAtKill = await recordedTurns(runDir, config);
    expect(await exited(sweep), sweep.output()).toBe(0);
    const survivor = workers.find((worker) => worker !== doomed) as (typeof workers)[number];
    survivor.kill('SIGTERM');
    expect(await exited(survivor)).toBe(0);
    expect(turnsAtKill).toBeLessThan(expandSweep(config).reduce((sum, spec) => sum + inProcessDecisions(spec).length, 0));
    expect(await keeperAttempts(server.address, config), 'the keeper ran again on the survivor').toBe(2);
    await expectCompleteAndExact(runDir, config);
    for (const [index, spec] of expandSweep(config).entries()) {
      const reference = expandSweep(undisturbed)[index] as SessionSpec;
      expect(measured(await summaryOf(runDir, spec)), sessionKey(spec)).toEqual(
        measured(await summaryOf(join(dir, 'undisturbed'), reference)),
      );
    }
    await server.stop();
  });

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
    await until(() => summaries() >= 2, 120_000, 'the first finished sessions');
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
  });
});

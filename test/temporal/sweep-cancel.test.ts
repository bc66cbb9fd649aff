import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { freePort } from '../../infra/ports.js';
import { decisionsOf, inProcessDecisions, summaryOf, transcriptOf } from './harness.js';
import { exited, killGroup, startCli, until } from './processes.js';
import { RunIndex } from '../../viewer/run-index.js';
import { runCli } from '../cli/run-cli.js';

/*
 * `allocbench cancel <run>` stops a sweep and every session it started: each
 * records that it was cancelled after everything it had recorded, the sweep
 * command ends listing them (exit 3), and running the sweep again resumes
 * them to the same decisions as the core's, one record per turn. Real CLI
 * processes with their embedded Temporal server: the cancel reaches a running
 * sweep's server, or, with nothing running the run, starts it on the run's
 * state to cancel there.
 */

const started: { kill: () => void }[] = [];
afterEach(() => {
  for (const process of started.splice(0)) process.kill();
});

const dir = mkdtempSync(join(tmpdir(), 'allocbench-cancel-'));

/**
 * Two sessions in flight at a time, two waiting; every item a decision turn at 300 ms a call: a session takes 9 s.
 * The resume (`window`: 4) plays all four at once: the window is how a run is executed, not what it measures.
 */
function sweepFile(name: string, window = 2): { file: string; config: SweepConfig } {
  const raw = {
    name,
    models: ['policy/commit-at-99?delay=300'],
    rungs: ['R1'],
    seeds: '2000-2003',
    stream: { length: 30 },
    window,
    heartbeatSeconds: 2,
  };
  const file = join(dir, `${name}-window-${window}.json`);
  writeFileSync(file, JSON.stringify(raw));
  return { file, config: parseSweepConfig(raw) };
}

function cli(args: string[]) {
  const child = startCli(args);
  started.push({ kill: () => killGroup(child) });
  return child;
}

const turnsOf = async (runDir: string, config: SweepConfig) =>
  Promise.all(expandSweep(config).map(async (spec) => (await transcriptOf(runDir, spec)).turns.length));

/** Starts the sweep `name` with its own embedded server, and returns once two sessions have played two turns each. */
async function sweepUnderWay(name: string) {
  const { file, config } = sweepFile(name);
  const runDir = join(dir, name);
  const sweep = cli(['sweep', file, '--out', runDir, '--temporal-port', String(await freePort())]);
  await until(
    async () => (await turnsOf(runDir, config).catch(() => [])).filter((n) => n >= 2).length >= 2,
    60_000,
    'two sessions under way',
  );
  return { config, runDir, sweep };
}

/** Cancels the run; returns what the command printed. */
async function cancel(runDir: string): Promise<string> {
  const child = cli(['cancel', runDir, '--temporal-port', String(await freePort())]);
  expect(await exited(child), child.output()).toBe(0);
  return child.output();
}

/** Runs the sweep again to its end: every session as the core plays it, one record per turn, the cancelled ones marked where they stopped. */
async function resumeAndCheck(runDir: string, config: SweepConfig, cancelled: number): Promise<void> {
  const { file } = sweepFile(config.name, 4);
  const again = cli(['sweep', file, '--out', runDir, '--temporal-port', String(await freePort())]);
  expect(await exited(again), again.output()).toBe(0);
  let marked = 0;
  for (const spec of expandSweep(config)) {
    const expected = inProcessDecisions(spec);
    expect(decisionsOf(await summaryOf(runDir, spec)), sessionKey(spec)).toEqual(expected);
    const transcript = await transcriptOf(runDir, spec);
    const turns = transcript.records.flatMap((record) => (record.type === 'turn' ? [record.t] : []));
    expect(turns, `${sessionKey(spec)}: one record per turn`).toEqual(expected.map((d) => d.t));
    const at = transcript.records.findIndex((record) => record.type === 'cancelled');
    if (at < 0) continue;
    marked++;
    // Cancelled mid-way: turns before the mark, the rest after it, nothing between the session's start and the mark lost.
    expect(transcript.records.slice(0, at).filter((record) => record.type === 'turn').length).toBeGreaterThan(0);
    expect(transcript.records.slice(at).filter((record) => record.type === 'turn').length).toBeGreaterThan(0);
  }
  expect(marked).toBe(cancelled);
}

describe('allocbench cancel', () => {
  it('stops a running sweep and its sessions, which record it; the sweep resumes them', async () => {
    const { config, runDir, sweep } = await sweepUnderWay('cancelled');

    const printed = await cancel(runDir);
    expect(printed).toMatch(/cancelled: cancelled; 0\/4 sessions finished; 2 cancelled, 2 waiting\./);
    expect(await exited(sweep), sweep.output()).toBe(3);
    expect(sweep.output()).toMatch(/The sweep was cancelled \(allocbench cancel\)/);
    const listed = sweep.output().split('\n');
    expect(listed.filter((line) => line.endsWith('(cancelled)'))).toHaveLength(2);
    expect(listed.filter((line) => line.endsWith('(not begun)'))).toHaveLength(2);

    // Cancelled is a state of its own, the same in every reader: the summaries say it, status and the viewer count it.
    const summaries = await Promise.all(expandSweep(config).map((spec) => summaryOf(runDir, spec).catch(() => undefined)));
    expect(summaries.filter((summary) => summary?.termination === 'cancelled')).toHaveLength(2);
    const status = runCli('status', runDir, '--json');
    expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ finished: 0, cancelled: 2, inFlight: 0, waiting: 2 });
    const watch = runCli('status', runDir, '--watch', '--interval', '0.1');
    expect(watch.status, 'status --watch ends: nothing is in flight').toBe(0);
    expect((await (await RunIndex.open(runDir)).live()).states).toMatchObject({ cancelled: 2, 'in flight': 0, waiting: 2 });

    await resumeAndCheck(runDir, config, 2);
    expect(JSON.parse(runCli('status', runDir, '--json').stdout).runs[0]).toMatchObject({ finished: 4, cancelled: 0 });
  });

  it('cancels a sweep left running in the run’s state by a killed command, starting its server to do so', async () => {
    const { config, runDir, sweep } = await sweepUnderWay('orphaned');
    killGroup(sweep);
    await exited(sweep);

    expect(await cancel(runDir)).toMatch(/orphaned: cancelled; 0\/4 sessions finished; 2 cancelled, 2 waiting\./);
    await resumeAndCheck(runDir, config, 2);
  });

  it('finishes a cancel whose running command is killed while the cancel waits, on the run’s own server started then', async () => {
    const { config, runDir, sweep } = await sweepUnderWay('killed-mid-cancel');
    // The command's workers stop (its server answers on): the cancel is asked, and its sessions cannot record it.
    process.kill(sweep.pid as number, 'SIGSTOP');
    const cancelling = cli(['cancel', runDir, '--temporal-port', String(await freePort())]);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(cancelling.exitCode, 'the cancel waits for the sessions to close').toBeNull();
    killGroup(sweep); // the command and its server: the cancel's server is gone mid-wait
    expect(await exited(cancelling), cancelling.output()).toBe(0);
    expect(cancelling.output()).toMatch(/killed-mid-cancel: cancelled; 0\/4 sessions finished; 2 cancelled, 2 waiting\./);
    await resumeAndCheck(runDir, config, 2);
  });
});

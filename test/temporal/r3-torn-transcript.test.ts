import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readJsonIfExists, readJsonLinesWithTorn } from '../../run-store/json-files.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { runKey, type TranscriptRecord } from '../../run-store/transcript.js';
import { freePort } from '../../infra/ports.js';
import { exited, killGroup, startCli } from './processes.js';

/*
 * A full disk or a crash cuts a transcript's last line short. Through the
 * built CLI, its embedded Temporal server, workers and sandbox process: the
 * commands that read the run, and the resumed run, set the torn line aside,
 * say so, and carry on from the intact records.
 */

const root = mkdtempSync(join(tmpdir(), 'allocbench-torn-'));
const base = join(root, 'base', 'torn');

/** Runs the built CLI, killing it (and its embedded server) if it has not exited within the limit. */
async function cli(args: readonly string[], limitMs = 60_000): Promise<{ code: number | null; output: string }> {
  const child = startCli(args);
  const timer = setTimeout(() => killGroup(child), limitMs);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, output: child.output() };
}

const runArgs = async (out: string) => [
  'run',
  '--model',
  'policy/commit-at-2',
  '--rung',
  'R3',
  '--seeds',
  '2000',
  '--out',
  out,
  '--temporal-port',
  String(await freePort()),
];

const sessionDir = (runDir: string) => join(runDir, 'sessions', readdirSync(join(runDir, 'sessions'))[0] as string);
const transcriptPath = (runDir: string) => join(sessionDir(runDir), 'transcript.jsonl');
const summaryOf = async (runDir: string) =>
  (await readJsonIfExists<SessionSummary>(join(sessionDir(runDir), 'summary.json'))) as SessionSummary;
const reportsIn = (output: string) => output.split('\n').filter((line) => /transcript\.jsonl: line \d+ was cut short/.test(line));

/**
 * A copy of the finished base run whose transcript ends with the first 60
 * characters of line `keep + 1` (with a newline or not): the lines after it are gone.
 */
function tornCopy(variant: string, lineOf: (lines: string[]) => number, newline: boolean): { runDir: string; torn: string } {
  const runDir = join(root, variant, 'torn');
  cpSync(base, runDir, { recursive: true });
  const path = transcriptPath(runDir);
  const lines = readFileSync(path, 'utf8').split('\n');
  const index = lineOf(lines);
  const torn = (lines[index] as string).slice(0, 60);
  writeFileSync(path, `${lines.slice(0, index).join('\n')}\n${torn}${newline ? '\n' : ''}`);
  return { runDir, torn };
}

beforeAll(async () => {
  const { code, output } = await cli(await runArgs(base), 90_000);
  expect(code, output).toBe(0);
});

describe('a transcript whose last line is torn', () => {
  it('is read by status, audit and analyze, which say so once and report the rest', async () => {
    // The session finished: its summary was written, then the disk filled while its end record was appended.
    const { runDir } = tornCopy('finished', (lines) => lines.length - 2, true);
    const status = await cli(['status', runDir, '--json']);
    expect(status.code, status.output).toBe(0);
    expect(status.output).toMatch(/"finished": 1/);
    const audit = await cli(['audit', runDir]);
    expect(audit.code, audit.output).toBe(0);
    expect(reportsIn(audit.output)).toHaveLength(1);
    const analyze = await cli(['analyze', runDir, '--out', join(runDir, 'report')]);
    expect(analyze.code, analyze.output).toBe(0);
    expect(reportsIn(analyze.output)).toHaveLength(1);
    expect(existsSync(join(runDir, 'report', 'index.html'))).toBe(true);
    expect(existsSync(`${transcriptPath(runDir)}.torn`)).toBe(false); // readers move nothing
  });

  it.each([
    ['without', false],
    ['with', true],
  ])(
    '%s a newline, is set aside when the cut-off run resumes, which finishes as the undisturbed run did',
    async (_, newline) => {
      // The disk filled while the last script run's outcome was appended: no end record, no summary.
      const { runDir, torn } = tornCopy(
        `resumed-${newline}`,
        (lines) => lines.map((line) => line.includes('"type":"execution"')).lastIndexOf(true),
        newline,
      );
      rmSync(join(sessionDir(runDir), 'summary.json'));
      const resumed = await cli(await runArgs(runDir), 60_000);
      expect(resumed.code, resumed.output).toBe(0);
      expect(reportsIn(resumed.output), resumed.output).toHaveLength(1);
      const { records, torn: left } = await readJsonLinesWithTorn<TranscriptRecord>(transcriptPath(runDir));
      expect(left).toBeNull();
      expect(readFileSync(`${transcriptPath(runDir)}.torn`, 'utf8')).toBe(`${torn}\n`);
      // One outcome per run_script call (keyed by its model call and position) and one step per model call.
      const executions = records.filter((r) => r.type === 'execution').map((r) => runKey(r.call, r.index));
      expect(executions.length).toBeGreaterThan(0);
      expect(new Set(executions).size).toBe(executions.length);
      const steps = records.filter((r) => r.type === 'loop-step').map((r) => r.call);
      expect(steps).toEqual(steps.map((_, index) => index + 1));
      expect(records.filter((r) => r.type === 'end')).toHaveLength(1);
      const [before, after] = [await summaryOf(base), await summaryOf(runDir)];
      for (const key of ['termination', 'mechanicalFailure', 'metrics', 'script'] as const) expect(after[key]).toEqual(before[key]);
      const status = await cli(['status', runDir, '--json']);
      expect(status.output).toMatch(/"finished": 1/);
      const analyze = await cli(['analyze', runDir, '--out', join(runDir, 'report')]);
      expect(analyze.code, analyze.output).toBe(0);
      expect(reportsIn(analyze.output)).toEqual([]);
    },
    120_000,
  );
});

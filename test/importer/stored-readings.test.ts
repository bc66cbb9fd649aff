import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import type { ImportReport } from '../../importer/import-arms.js';
import { authorsStream, bigInt, pythonJson, writeDecisionSeed } from './authors-format.js';

/*
 * Every value the authors' harness can record, in arms written by this test
 * in their formats: each `how` reading at R0, the tool rungs and R2, empty
 * and partial usage objects, an economic cell of the old `R2c` naming, an R3
 * session with Python's Infinity and an answer beyond 2^53, and seeds their
 * harness left unfinished (no session file, only partial_session.json).
 */

const root = mkdtempSync(join(tmpdir(), 'allocbench-readings-'));
const runs = join(root, 'runs');
const out = join(root, 'imported');
const ERROR_REPLY = '[error APIConnectionError, retries exhausted]';
const call = (name: string, args = '{}') => ({ name, arguments: args });
const CODE = JSON.stringify({ code: 'def solve(inputs):\n    return 1' });

interface Summary {
  termination: string;
  metrics: { unresolved: number; commitments: number; utility: number };
  decisions: { t: number; action: string; resolved: boolean; how?: string; failure?: string }[];
}
const summariesOf = (runDir: string): Summary[] =>
  readdirSync(join(runDir, 'sessions')).map((dir) => JSON.parse(readFileSync(join(runDir, 'sessions', dir, 'summary.json'), 'utf8')));
const transcriptOf = (runDir: string) => {
  const [dir] = readdirSync(join(runDir, 'sessions'));
  return readFileSync(join(runDir, 'sessions', dir ?? '', 'transcript.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
};

let result: { status: number | null; stderr: string; report: ImportReport };
const arm = (source: string) => {
  const found = result.report.arms.find((a) => a.source === source);
  if (!found) throw new Error(`no arm ${source}: ${result.stderr}`);
  return found;
};

beforeAll(() => {
  writeDecisionSeed(join(runs, 'urn_tiny-model_n-announced'), 2000, 'R0', [
    { how: 'tag', commit: false, reply: 'Too early to tell.\nDECISION: PASS' },
    { how: 'lead', commit: true, reply: 'KEEP: it has come back already.' },
    { how: 'scan', commit: false, reply: 'Nothing repeats yet, so PASS for now.' },
    { how: 'default', commit: false, reply: 'Hard to say.' },
    { how: 'error', commit: false, reply: ERROR_REPLY, usages: [{}] },
    { how: 'hunch', commit: false, reply: '???' },
    { how: 'tag', commit: false, reply: 'DECISION: PASS', usages: [{ input_tokens: 12 }] },
  ]);
  writeDecisionSeed(join(runs, 'claim_solver_tiny-model_n-announced'), 2001, 'R1', [
    { how: 'tool', commit: true, reply: '', toolCalls: [call('claim_solver')] },
    { how: 'both', commit: true, reply: '', toolCalls: [call('claim_solver'), call('skip_solver')] },
    { how: 'unknown', commit: false, reply: '', toolCalls: [call('solve_it')] },
    { how: 'default', commit: false, reply: 'I would skip.' },
    { how: 'error', commit: false, reply: ERROR_REPLY, usages: [{}] },
  ]);
  writeDecisionSeed(join(runs, 'claim_solver_code_tiny-model_n-announced_efr4'), 2002, 'R2', [
    { how: 'malformed_args', commit: false, reply: '', toolCalls: [call('claim_solver', '{"code": "  "}')] },
    { how: 'tool', commit: true, reply: '', toolCalls: [call('claim_solver', CODE)] },
    { how: 'default', commit: false, reply: '```\n```', usages: [1, 2, 3, 4].map((n) => ({ input_tokens: 400 + n, output_tokens: 3 })) },
    { how: 'both', commit: false, reply: '', toolCalls: [call('skip_solver'), call('claim_solver', CODE)] },
  ]);
  // An economic cell under the authors' old rung name, and a seed their harness stopped (partial_session.json only).
  const cell = join(runs, 'economic_surface_tiny-model', 'R2c', 'B_1', 'K_10');
  writeDecisionSeed(cell, 2003, 'R2', [{ how: 'tool', commit: true, reply: '', toolCalls: [call('claim_solver', CODE)] }], {
    K: 10,
    config: { announce_n: true, B: 1, K: 10, provider: 'ollama' },
  });
  const partial = writeDecisionSeed(cell, 2004, 'R2', [], { K: 10 });
  writeFileSync(partial.replace('session.json', 'partial_session.json'), readFileSync(partial));
  rmSync(partial);
  // An R3 seed: a script that overflowed to Infinity, a wrong answer beyond 2^53 and a right one by hand; and one with no sessions.jsonl.
  const r3 = join(runs, 'arm_a1_announce_tiny-model_n-announced_class-bound-v1');
  for (const seed of [2005, 2006]) {
    const dir = join(r3, `seed_${seed}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'stream.json'), pythonJson(authorsStream(seed).items));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ budget: 3, seed, provider: 'ollama', class_bound: true }));
  }
  const { stream } = authorsStream(2005);
  const records: Record<string, unknown>[] = stream.items.map((_, index) => ({
    item_idx: index,
    submitted: false,
    correct: false,
    answer: null,
  }));
  records[0] = {
    ...records[0],
    ...{
      scripts_authored: ['s'],
      scripts_run: ['s'],
      runs: [{ script: 's', ret: 'INF' }],
      submitted: true,
      answer: bigInt('98765432109876543210'),
    },
    used_script: true,
  } as (typeof records)[number];
  records[1] = { item_idx: 1, submitted: true, correct: true, answer: bigInt(stream.items[1]?.answer ?? '0') };
  const session = {
    model_key: 'tiny-model',
    budget: 3,
    n_correct: 1,
    n_scripts_written: 1,
    token_cap: 300000,
    spent_tokens: 299900,
    hit_cap: false,
    stopped_on_budget: false,
    stop_reason: null,
    eff_solve_by_hand: 'NAN',
    records,
    transcript: [{ role: 'user', content: 'PROBLEM 1 of 60' }],
    turn_usages: [0, 0, 1].map((problem) => ({ problem, input_tokens: 100, output_tokens: 10, tools: ['write_script'] })),
  };
  const line = pythonJson(session).replace(/\n\s*/g, ' ').replace('"INF"', 'Infinity').replace('"NAN"', 'NaN');
  writeFileSync(join(r3, 'seed_2005', 'sessions.jsonl'), `${line}\n`);

  const raw = runCli('import', runs, '--out', out, '--json');
  result = { status: raw.status, stderr: raw.stderr, report: JSON.parse(raw.stdout) as ImportReport };
});

describe("import reads every value the authors' harness can record", () => {
  it('imports every arm, skips the two unfinished seeds with one line each naming the file, and exits 3', () => {
    expect(result.report.errors).toEqual([]);
    expect(result.report.arms.map((a) => a.source).sort()).toEqual([
      'arm_a1_announce_tiny-model_n-announced_class-bound-v1',
      'claim_solver_code_tiny-model_n-announced_efr4',
      'claim_solver_tiny-model_n-announced',
      'economic_surface_tiny-model/R2c/B_1/K_10',
      'urn_tiny-model_n-announced',
    ]);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.stringMatching(/^allocbench: import: skipped .*seed_2004\/session\.json: missing \(only partial_session\.json/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^allocbench: import: skipped .*seed_2006\/sessions\.jsonl: missing/));
    expect(result.status).toBe(3);
  });

  it("R0: tag, lead and scan are read decisions; default, error and an unknown value are unparsed, as the authors' counts have them", () => {
    const urn = arm('urn_tiny-model_n-announced');
    expect(urn.summaryDifferences).toEqual([]);
    expect(urn.reparse).toMatchObject({ turns: urn.turns, agree: urn.turns });
    expect(urn.unknownReadings).toEqual([{ seed: 2000, turn: expect.any(Number), how: 'hunch' }]);
    const [summary] = summariesOf(urn.runDir);
    const first = summary?.decisions.slice(0, 7).map((d) => [d.action, d.resolved, d.how ?? d.failure]);
    expect(first).toEqual([
      ['pass', true, 'tag'],
      ['commit', true, 'lead'],
      ['pass', true, 'scan'],
      ['pass', false, 'no-decision'],
      ['pass', false, 'transport-error'],
      ['pass', false, 'unknown-how'],
      ['pass', true, 'tag'],
    ]);
    expect(summary?.metrics.unresolved).toBe(3);
    // The failed call's empty usage object is an attempt of no tokens, recorded as a transport error.
    const errorTurn = summary?.decisions[4]?.t;
    const attempt = transcriptOf(urn.runDir).find((r) => r.type === 'attempt' && r.t === errorTurn);
    expect(attempt).toMatchObject({ outcome: 'transport-error', usage: { inputTokens: 0, outputTokens: 0 } });
  });

  it('R1: both applies its first call and counts as unparsed; unknown, default and error are unparsed passes', () => {
    const r1 = arm('claim_solver_tiny-model_n-announced');
    expect(r1.summaryDifferences).toEqual([]);
    expect(r1.reparse).toMatchObject({ turns: r1.turns, agree: r1.turns });
    const [summary] = summariesOf(r1.runDir);
    expect(summary?.decisions.slice(0, 5).map((d) => [d.action, d.resolved, d.failure ?? d.how])).toEqual([
      ['commit', true, 'tool'],
      ['commit', true, 'several-decisions'],
      ['pass', false, 'unknown-function'],
      ['pass', false, 'no-decision'],
      ['pass', false, 'transport-error'],
    ]);
    expect(summary?.metrics).toMatchObject({ unresolved: 4, commitments: 2 });
  });

  it('R2: malformed_args is an unparsed pass; an empty-fence turn takes its four calls', () => {
    const r2 = arm('claim_solver_code_tiny-model_n-announced_efr4');
    expect(r2.summaryDifferences).toEqual([]);
    expect(r2.reparse).toMatchObject({ agree: r2.turns });
    const [summary] = summariesOf(r2.runDir);
    expect(summary?.decisions.slice(0, 4).map((d) => [d.action, d.resolved, d.failure ?? d.how])).toEqual([
      ['pass', false, 'malformed-arguments'],
      ['commit', true, 'tool'],
      ['pass', false, 'no-decision'],
      ['pass', true, 'several-decisions'],
    ]);
    const fenced = summary?.decisions[2]?.t;
    const attempts = transcriptOf(r2.runDir).filter((r) => r.type === 'attempt' && r.t === fenced);
    expect(attempts.map((a) => a.outcome)).toEqual(['empty-reply', 'empty-reply', 'empty-reply', 'ok']);
  });

  it('an R2c economic cell is R2 at its B and K', () => {
    expect(arm('economic_surface_tiny-model/R2c/B_1/K_10')).toMatchObject({ rung: 'R2', budget: 1, charge: 10, seeds: [2003] });
  });

  it("R3: Python's Infinity is a returned value that is not the gold, an answer beyond 2^53 is read exactly, and too few tokens left is the token cap", () => {
    const r3 = arm('arm_a1_announce_tiny-model_n-announced_class-bound-v1');
    expect(r3.seeds).toEqual([2005]);
    expect(r3.summaryDifferences).toEqual([]);
    const [summary] = summariesOf(r3.runDir) as (Summary & { script: { metrics: Record<string, number> } })[];
    expect(summary?.termination).toBe('token-cap');
    expect(summary?.script.metrics).toMatchObject({ scriptRuns: 1, scriptReturns: 1, scriptCorrect: 0, answeredCorrectly: 1 });
  });
});

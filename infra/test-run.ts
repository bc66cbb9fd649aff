/*
 * The suite's test step, for `npm test` (infra/run-tests.ts) and `npm run
 * test:profile` (bench/test-profile.ts): vitest and the trainer's Python tests
 * (rl/tests, pytest in rl/.venv) side by side rather than one after the other
 * (most of vitest's time is spent waiting on servers and processes, so the
 * two together take little more than the longer one: docs/testing.md), then
 * one summary: each part's result, wall and CPU seconds, the test count, and
 * the groups that were skipped with the command that enables each
 * (infra/test-groups.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpuSeconds } from '../bench/process-stats.js';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunProfile } from './test-reporter.js';
import { projectRoot } from './project-root.js';
import { TEST_GROUPS, TRAINER_PYTHON, type TestGroup } from './test-groups.js';

const root = projectRoot();

export interface PartResult {
  readonly name: string;
  readonly ok: boolean;
  readonly wallS: number;
  /** CPU seconds of the part and every process under it that was waited for. */
  readonly cpuS: number;
  readonly summary: string;
}

interface Spawned {
  readonly done: Promise<{ code: number; wallS: number }>;
  output: string;
}

function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv, capture: boolean): Spawned {
  const began = performance.now();
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'] });
  const spawned: Spawned = {
    output: '',
    done: new Promise((resolve) => {
      child.on('error', (error) => {
        spawned.output += `${error.message}\n`;
      });
      child.on('close', (code) => resolve({ code: code ?? 1, wallS: (performance.now() - began) / 1000 }));
    }),
  };
  const keep = (chunk: Buffer) => (spawned.output += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return spawned;
}

export interface TestRunOptions {
  /** Arguments for vitest after `run`. */
  readonly vitestArgs: readonly string[];
  /** Where the per-file profile goes (infra/test-reporter.ts). */
  readonly profileFile: string;
  readonly trainer: boolean;
}

export interface TestRun {
  readonly parts: readonly PartResult[];
  readonly profile: RunProfile | undefined;
  readonly wallS: number;
  readonly skippedGroups: readonly TestGroup[];
  readonly ok: boolean;
}

export async function runTests(options: TestRunOptions): Promise<TestRun> {
  const began = performance.now();
  const reporter = join(root, 'dist', 'infra', 'test-reporter.js');
  const vitest = start(
    process.execPath,
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', `--reporter=${reporter}`, ...options.vitestArgs],
    { ...process.env, ALLOCBENCH_TEST_PROFILE: options.profileFile },
    false,
  );
  const trainer = options.trainer
    ? start(TRAINER_PYTHON, ['-m', 'pytest', join(root, 'rl', 'tests'), '-q', '-p', 'no:cacheprovider'], trainerEnv(), true)
    : undefined;
  // Whichever ends first is charged the CPU read when it ends; the other, the rest.
  const parts: PartResult[] = [];
  let cpuBefore = cpuSeconds().children;
  const finished = async (name: string, spawned: Spawned, summarize: (output: string, code: number) => string) => {
    const { code, wallS } = await spawned.done;
    const cpuNow = cpuSeconds().children;
    parts.push({ name, ok: code === 0, wallS, cpuS: cpuNow - cpuBefore, summary: summarize(spawned.output, code) });
    cpuBefore = cpuNow;
  };
  await Promise.all([
    finished('vitest', vitest, (_, code) => (code === 0 ? 'passed' : `failed (exit ${code})`)),
    trainer && finished("trainer's tests", trainer, (output) => output.trim().split('\n').at(-1) ?? ''),
  ]);
  if (trainer) process.stdout.write(`\n--- the trainer's tests (rl/tests, pytest) ---\n${trainer.output}`);
  const profile = readProfile(options.profileFile);
  const skippedGroups = Object.values(TEST_GROUPS).filter((group) => !group.present);
  return {
    parts,
    profile,
    wallS: (performance.now() - began) / 1000,
    skippedGroups,
    ok: parts.every((part) => part.ok),
  };
}

function trainerEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: join(root, 'rl'), PYTHONUNBUFFERED: '1' };
}

function readProfile(file: string): RunProfile | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RunProfile;
  } catch {
    return undefined;
  }
}

/** The closing lines: each part's result and time, then what was skipped and how to run it. */
export function summaryLines(run: TestRun): string[] {
  const lines = ['', '=== npm test ==='];
  for (const part of run.parts) {
    lines.push(`${part.name}: ${part.summary} (${part.wallS.toFixed(0)} s wall, ${part.cpuS.toFixed(0)} CPU-s)`);
  }
  const files = run.profile?.files ?? [];
  const skippedTests = files.reduce((sum, file) => sum + file.skipped, 0);
  const tests = files.reduce((sum, file) => sum + file.passed + file.failed + file.skipped, 0);
  if (files.length) lines.push(`vitest: ${tests} tests in ${files.length} files, ${skippedTests} skipped`);
  lines.push(`total: ${run.wallS.toFixed(0)} s`);
  if (run.skippedGroups.length === 0) {
    lines.push('skipped groups: none (every part of the suite ran)');
  } else {
    lines.push('skipped groups (each runs once its command has):');
    for (const group of run.skippedGroups) lines.push(`  ${group.name}: ${group.enable}`);
  }
  return lines;
}

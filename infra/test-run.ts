/*
 * The suite's test step, for `npm test` (infra/run-tests.ts) and `npm run
 * test:profile` (bench/test-profile.ts): vitest, the checks (tsc, eslint,
 * prettier) and the trainer's Python tests (rl/tests, pytest in rl/.venv) side
 * by side rather than one after the other (much of vitest's time is spent
 * waiting on servers and processes, and the others fill the cores meanwhile:
 * docs/testing.md), then one summary: each part's result, wall and CPU
 * seconds, the test count, and the groups that were skipped with the command
 * that enables each (infra/test-groups.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './process-stats.js';
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

/** `niceness` above 0 lowers the part's CPU priority, and that of every process it starts. */
function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv, capture: boolean, niceness = 0): Spawned {
  const began = performance.now();
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'] });
  if (niceness > 0 && child.pid !== undefined) setPriority(child.pid, niceness);
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
  /** Run `npm run check` (tsc, eslint, prettier) beside the tests. */
  readonly checks: boolean;
  readonly trainer: boolean;
}

export interface TestRun {
  readonly parts: readonly PartResult[];
  readonly profile: RunProfile | undefined;
  readonly wallS: number;
  readonly skippedGroups: readonly TestGroup[];
  readonly ok: boolean;
}

interface Part {
  readonly name: string;
  readonly spawned: Spawned;
  /** Its output is held and printed after vitest's, which streams. */
  readonly held: boolean;
  readonly summarize: (output: string, code: number) => string;
}

/**
 * The trainer's tests are one process (about 250 CPU-s) beside vitest's many: at equal priority they got
 * about an eighth of the cores and ran on alone for a minute and a half after vitest ended. Niceness 5
 * ends the two about together on CI's 2 cores (docs/testing.md has the measurements).
 */
const VITEST_NICENESS_BESIDE_TRAINER = 5;

const passedOrExit = (_: string, code: number) => (code === 0 ? 'passed' : `failed (exit ${code})`);

export async function runTests(options: TestRunOptions): Promise<TestRun> {
  const began = performance.now();
  const reporter = join(root, 'dist', 'infra', 'test-reporter.js');
  const running: Part[] = [
    {
      name: 'vitest',
      spawned: start(
        process.execPath,
        [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', `--reporter=${reporter}`, ...options.vitestArgs],
        { ...process.env, ALLOCBENCH_TEST_PROFILE: options.profileFile },
        false,
        options.trainer ? VITEST_NICENESS_BESIDE_TRAINER : 0,
      ),
      held: false,
      summarize: passedOrExit,
    },
  ];
  if (options.checks) {
    const checks = start('npm', ['run', '--silent', 'check'], process.env, true);
    running.push({ name: 'checks (npm run check)', spawned: checks, held: true, summarize: passedOrExit });
  }
  if (options.trainer) {
    const pytest = start(TRAINER_PYTHON, ['-m', 'pytest', join(root, 'rl', 'tests'), '-q', '-p', 'no:cacheprovider'], trainerEnv(), true);
    running.push({
      name: "trainer's tests (rl/tests)",
      spawned: pytest,
      held: true,
      summarize: (output) => output.trim().split('\n').at(-1) ?? '',
    });
  }
  // A child's CPU reaches this process's count when it is waited for, so each part's is what the count gained as it ended.
  const parts: PartResult[] = [];
  let cpuBefore = cpuSeconds().children;
  await Promise.all(
    running.map(async ({ name, spawned, summarize }) => {
      const { code, wallS } = await spawned.done;
      const cpuNow = cpuSeconds().children;
      parts.push({ name, ok: code === 0, wallS, cpuS: cpuNow - cpuBefore, summary: summarize(spawned.output, code) });
      cpuBefore = cpuNow;
    }),
  );
  for (const { name, spawned, held } of running) if (held) process.stdout.write(`\n--- ${name} ---\n${spawned.output}`);
  return {
    parts,
    profile: readProfile(options.profileFile),
    wallS: (performance.now() - began) / 1000,
    skippedGroups: Object.values(TEST_GROUPS).filter((group) => !group.present),
    ok: parts.every((part) => part.ok),
  };
}

function trainerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: join(root, 'rl'),
    PYTHONUNBUFFERED: '1',
    // One thread in the trainer's subprocesses too, as conftest.py sets in pytest's own: beside vitest, more threads only contend for the cores.
    OMP_NUM_THREADS: '1',
    // glibc's allocator keeps what torch frees instead of handing each large tensor back to the kernel and faulting
    // fresh pages in for the next one: alone, the trainer's tests spent 44 of their 229 CPU-s in the kernel; beside
    // vitest they took 244–252 CPU-s with this, 288 without.
    MALLOC_MMAP_MAX_: '0',
    MALLOC_TRIM_THRESHOLD_: String(4 * 1024 ** 3),
    MALLOC_TOP_PAD_: String(256 * 1024 ** 2),
  };
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
  const files = run.profile?.files ?? [];
  const count = (pick: (file: RunProfile['files'][number]) => number) => files.reduce((sum, file) => sum + pick(file), 0);
  const tests = count((f) => f.passed + f.failed + f.skipped);
  const counted = files.length
    ? `, ${tests} tests in ${files.length} files, ${count((f) => f.failed)} failed, ${count((f) => f.skipped)} skipped`
    : '';
  const lines = ['', '=== npm test ==='];
  for (const part of run.parts) {
    const detail = part.name === 'vitest' ? counted : '';
    lines.push(`${part.name}: ${part.summary}${detail} (${part.wallS.toFixed(0)} s wall, ${part.cpuS.toFixed(0)} CPU-s)`);
  }
  lines.push(`all parts together: ${run.wallS.toFixed(0)} s wall`);
  if (run.skippedGroups.length === 0) {
    lines.push('skipped groups: none (every part of the suite ran)');
  } else {
    lines.push('skipped groups (each runs once its command has):');
    for (const group of run.skippedGroups) lines.push(`  ${group.name}: ${group.enable}`);
  }
  return lines;
}

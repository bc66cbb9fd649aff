import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliPath, projectRoot } from '../../infra/project-root.js';
import { runLayout } from '../../run-store/run-layout.js';
import { runLockPath } from '../../run-store/run-lock.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { ENV_DEFAULTS } from '../../cli/env-defaults.js';
import { runCli, runCliWith } from './run-cli.js';

const fresh = (label: string) => mkdtempSync(join(tmpdir(), `allocbench-${label}-`));
const estimateSessions = (stdout: string) =>
  (JSON.parse(stdout) as { estimate: { sessions: number }[] }).estimate.reduce((sum, cell) => sum + cell.sessions, 0);

describe('allocbench --version', () => {
  it("prints package.json's version", () => {
    const { status, stdout } = runCli('--version');
    expect(status).toBe(0);
    expect(stdout.trim()).toBe((JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version);
  });
});

describe('.env in the working directory and ALLOCBENCH_* defaults', () => {
  const estimate = ['run', '--model', 'policy/eager', '--rung', 'R0', '--estimate', '--json'];

  it('an ALLOCBENCH_* variable sets an option when the command line does not, from the environment or .env; what is already set wins', () => {
    const dir = fresh('dotenv');
    expect(estimateSessions(runCliWith({ [ENV_DEFAULTS.seeds]: '2000-2002' }, estimate, dir).stdout)).toBe(3);
    expect(estimateSessions(runCliWith({ [ENV_DEFAULTS.seeds]: '2000-2002' }, [...estimate, '--seeds', '2000'], dir).stdout)).toBe(1);
    writeFileSync(join(dir, '.env'), `# defaults for this directory\n${ENV_DEFAULTS.seeds}=2000-2004\n`);
    expect(estimateSessions(runCliWith({}, estimate, dir).stdout)).toBe(5);
    expect(estimateSessions(runCliWith({ [ENV_DEFAULTS.seeds]: '2000-2001' }, estimate, dir).stdout)).toBe(2);
    const model = runCliWith(
      { [ENV_DEFAULTS.model]: 'policy/bayes' },
      ['run', '--rung', 'R0', '--announce-n', '--seeds', '2000', '--estimate'],
      dir,
    );
    expect(model.stdout).toMatch(/^policy\/bayes\s+R0\s+1\s/m);
  });

  it('a bad value names its variable in one line (exit 2), and --help names every variable', () => {
    const bad = runCliWith({ [ENV_DEFAULTS.window]: 'many' }, estimate, fresh('dotenv-bad'));
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^error: option '--window <n>' value 'many' from env 'ALLOCBENCH_WINDOW' is invalid\. [^\n]*$/);
    const help = `${runCli('run', '--help').stdout}${runCli('sweep', '--help').stdout}`.replace(/\s+/g, ' ');
    for (const name of Object.values(ENV_DEFAULTS)) expect(help).toContain(`env: ${name}`);
  });

  it('loads a key from .env into the environment, and never prints it', () => {
    const dir = fresh('dotenv-key');
    const secret = 'dotenvvaluenotkeyshaped42';
    writeFileSync(join(dir, '.env'), `ANTHROPIC_API_KEY=${secret}\n`);
    // A message that quotes the key's value (here a path) shows it redacted: the key is configured, and not echoed.
    const loaded = runCliWith({ ANTHROPIC_API_KEY: undefined }, ['audit', join(dir, secret)], dir);
    expect(loaded.status).toBe(2);
    expect(loaded.stderr).toContain('[redacted]');
    expect(loaded.stderr).not.toContain(secret);
    const elsewhere = runCliWith({ ANTHROPIC_API_KEY: undefined }, ['audit', join(dir, secret)], fresh('no-dotenv'));
    expect(elsewhere.stderr).toContain(secret);
  });
});

describe('closed sets of values in --help', () => {
  it.each([
    [['run', '--help'], /--rung <rung>\s+framing rung \(choices: "R0", "R1", "R2", "R3", "probe"\)/],
    [['run', '--help'], /--reskin <name>\s+urn vocabulary for R0 and the probe \(choices: "ball", "chest", "quiver", "cauldron"\)/],
    [['simulate', '--help'], /--policy <name>\s+reference policy \(choices: "eager", "commit-at-k", "bayes", "optimal", "hindsight"\)/],
    [['sweep', '--help'], /--replay-miss <what>[\s\S]*\(choices: "error", "live"\)/],
    [['solve', '--help'], /family\s+the family \(choices: "lcg", "modpow",/],
  ])('%j lists them', (args, listed) => {
    expect(runCli(...args).stdout.replace(/\n\s+/g, ' ')).toMatch(listed);
  });

  it('a value outside the set is one line naming the choices (exit 2)', () => {
    const { status, stderr } = runCli('run', '--model', 'policy/eager', '--rung', 'R9');
    expect(status).toBe(2);
    expect(stderr.trim()).toBe(`error: option '--rung <rung>' argument 'R9' is invalid. Allowed choices are R0, R1, R2, R3, probe.`);
  });
});

describe('compare: models as the last arguments, by unambiguous prefix, and --json', () => {
  const dir = fresh('compare-models');
  beforeAll(() => {
    writeSyntheticRun(join(dir, 'runs'), {
      name: 'three',
      models: ['policy/eager', 'policy/commit-at-2', 'policy/commit-at-3'],
      rungs: ['R0', 'R1'],
      seeds: [2000, 2001, 2002, 2003],
    });
  });
  const compare = (...args: string[]) => runCli('compare', join(dir, 'runs'), ...args);

  it('reads the two models after the run directories, each its id or the start of one, as --a and --b do', () => {
    const json = compare('policy/eag', 'policy/commit-at-2', '--json');
    expect(json.status, json.stderr).toBe(0);
    const table = JSON.parse(json.stdout) as { a: string; b: string; rows: Record<string, unknown>[] };
    expect([table.a, table.b]).toEqual(['policy/eager', 'policy/commit-at-2']);
    const r0 = table.rows.find((row) => row.Panel === 'R0') as Record<string, unknown>;
    expect(r0.Seeds).toBe(4);
    // eager keeps at first sight always, commit-at-2 never: B - A is -100 points, its interval a point.
    expect(r0['B − A [95% CI]']).toEqual({ estimate: -1, low: -1, high: -1 });
    const flags = compare('--a', 'policy/eager', '--b', 'policy/commit-at-2');
    expect(flags.status).toBe(0);
    expect(compare('policy/eager', 'policy/commit-at-2').stdout).toBe(flags.stdout);
    expect(compare('--a', 'policy/e', 'policy/commit-at-2').stdout).toBe(flags.stdout);
  });

  it('an ambiguous or unknown name is one line listing the models (exit 2)', () => {
    const ambiguous = compare('policy/commit', 'policy/eager');
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr.trim()).toBe(
      "allocbench: model A: 'policy/commit' is ambiguous, it starts policy/commit-at-2, policy/commit-at-3",
    );
    const unknown = compare('policy/eager', 'gpt');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toMatch(
      /^allocbench: model B: no model in these runs starts with 'gpt' \(models: policy\/eager, policy\/commit-at-2, policy\/commit-at-3\)$/,
    );
    expect(compare().status).toBe(2);
  });
});

describe('analyze --json and status --watch', () => {
  it('analyze --json prints the numbers its tables hold', () => {
    const dir = fresh('analyze-json');
    writeSyntheticRun(join(dir, 'run'), { name: 'one', models: ['policy/eager'], rungs: ['R0'], seeds: [2000, 2001] });
    const { status, stdout, stderr } = runCli('analyze', join(dir, 'run'), '--out', join(dir, 'report'), '--json');
    expect(status, stderr).toBe(0);
    const report = JSON.parse(stdout) as { sessions: number; tables: { id: string; rows: Record<string, unknown>[] }[] };
    expect(report.sessions).toBe(2);
    const ladder = report.tables.find((t) => t.id === 'framing-ladder');
    expect(ladder?.rows).toEqual([expect.objectContaining({ Model: 'policy/eager', R0: 1 })]);
    const csv = readFileSync(join(dir, 'report', 'tables', 'framing-ladder.csv'), 'utf8');
    expect(csv.split('\n')[1]).toMatch(/^policy\/eager,1,/);
  });

  it('status --watch prints while a live command runs a session of the run, then exits 0', async () => {
    const runDir = join(fresh('watch'), 'run');
    const [spec] = writeSyntheticRun(runDir, { name: 'watched', models: ['policy/eager'], rungs: ['R0'], seeds: [2000, 2001] });
    const summary = runLayout.summary(runDir, spec!);
    const kept = readFileSync(summary);
    rmSync(summary);
    // In flight, and nothing runs the run (a killed command): the watch has nothing to wait for.
    const alone = runCli('status', runDir, '--watch', '--interval', '0.2', '--json');
    expect(alone.status, alone.stderr).toBe(0);
    expect(alone.stdout.trim().split('\n')).toHaveLength(1);
    // A live command runs it (this process, as the lock's holder): the watch goes on until the session finishes.
    writeFileSync(runLockPath(runDir), JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
    const child = spawn(process.execPath, [cliPath(), 'status', runDir, '--watch', '--interval', '0.2', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let restored = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      lines.push(...chunk.split('\n').filter(Boolean));
      // Once it has printed the unfinished run twice, the session finishes.
      if (lines.length >= 2 && !restored) {
        restored = true;
        writeFileSync(summary, kept);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const finished = lines.map((line) => (JSON.parse(line) as { runs: { finished: number; total: number }[] }).runs[0]?.finished);
    expect(finished.slice(0, 2)).toEqual([1, 1]);
    expect(finished.at(-1)).toBe(2);
  });
});

describe('a run directory that does not exist', () => {
  it.each([
    ['compare', (missing: string) => ['compare', missing, 'policy/eager', 'policy/commit-at-2']],
    ['analyze', (missing: string) => ['analyze', missing, '--out', join(fresh('analyze-missing'), 'report')]],
  ])('%s names it as missing, in one line (exit 2)', (_, args) => {
    const dir = fresh('missing');
    const { status, stdout, stderr } = runCliWith({}, args(join('runs', 'nope')), dir);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('allocbench: runs/nope: no such run directory\n');
  });
});

describe('a reader that closes the pipe', () => {
  /** The CLI with its stdout closed once it has printed `lines` lines (0: before it prints): its exit code and its stderr. */
  function closeAfter(args: readonly string[], lines: number): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, ['--no-node-snapshot', cliPath(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = 0;
    let stderr = '';
    if (lines === 0) child.stdout.destroy();
    else
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        printed += chunk.split('\n').length - 1;
        if (printed >= lines) child.stdout.destroy();
      });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  }

  it('ends status --watch quietly, exit 0, as `status --watch | head -1` does', async () => {
    const runDir = join(fresh('watch-pipe'), 'run');
    const [spec] = writeSyntheticRun(runDir, { name: 'unfinished', models: ['policy/eager'], rungs: ['R0'], seeds: [2000, 2001] });
    rmSync(runLayout.summary(runDir, spec!));
    // A live command runs it (this process, as the lock's holder): the watch goes on printing.
    writeFileSync(runLockPath(runDir), JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
    expect(await closeAfter(['status', runDir, '--watch', '--interval', '0.1'], 1)).toEqual({ code: 0, stderr: '' });
  });

  it('ends a command that has not printed yet quietly, exit 0', async () => {
    expect(await closeAfter(['schema', 'sweep'], 0)).toEqual({ code: 0, stderr: '' });
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildProgram } from '../../cli/program.js';
import { ENV_DEFAULTS } from '../../cli/env-defaults.js';
import { cliPath, projectRoot } from '../../infra/project-root.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { writeDecisionSeed } from '../importer/authors-format.js';
import { runCliWith } from '../cli/run-cli.js';
import { docExamples, type DocExample } from './doc-examples.js';

/*
 * Every shell example in README.md and docs/*.md (test/docs/doc-examples.ts
 * says how a block is marked). The offline ones run, as a reader would type
 * them, in a working directory that holds what the pages assume: the
 * repository's sweep files, config, RL configs and docs (their example programs); `runs/demo`, the demo
 * sweep on two of its seeds, written in process by the reference policies
 * (the demo itself runs here with --estimate: it takes minutes); `AlloBench/runs`, a few arms in
 * the paper authors' formats named as theirs (Haiku's R0 and R1, Qwen base's
 * R0), written from our own streams; and `paper`, their import. Examples that
 * need a key, a GPU, a cluster, the network or minutes are parsed by the real
 * command line, which checks that each option exists and takes the value given.
 */

const root = projectRoot();
const main = cliPath();
const packageScripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** What the examples' shell knows: `npx allocbench` is the built CLI; `npm` is noted, not run. */
const PRELUDE = `
allocbench() { node --no-node-snapshot "$ALLOCBENCH_MAIN" "$@"; }
npx() {
  if [ "$1" != allocbench ]; then echo "npx $1: only npx allocbench runs here" >&2; return 97; fi
  shift
  if [ -n "$ESTIMATE" ] && { [ "$1" = run ] || [ "$1" = sweep ]; }; then allocbench "$@" --estimate; else allocbench "$@"; fi
}
npm() { printf '%s\\n' "$*" >> "$NPM_LOG"; }
`;

/** For examples that are only checked: every `npx allocbench` call's arguments are recorded, nothing else runs (no PATH). */
const RECORDING_PRELUDE = `
PATH=/nonexistent
npx() { if [ "$1" = allocbench ]; then shift; printf '%s\\x1f' "$@" >> "$ARGV_LOG"; printf '\\x1e' >> "$ARGV_LOG"; fi; }
npm() { printf '%s\\n' "$*" >> "$NPM_LOG"; }
`;

const BASH = spawnSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim() || '/bin/bash';

/** The environment the CLI sees: no keys, no option defaults, the suite's online-optimum cache. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  for (const name of Object.values(ENV_DEFAULTS)) delete env[name];
  for (const name of ['TEMPORAL_ADDRESS', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']) delete env[name];
  return { ...env, ALLOCBENCH_MAIN: main, ...extra };
}

interface Outcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runShell(script: string, cwd: string, env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(BASH, ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Commander's verdict on an argument list, with every action replaced by nothing: null when it parses. */
async function parseError(args: readonly string[]): Promise<string | null> {
  const program = buildProgram();
  let said = '';
  const quiet = (command: Command) => {
    command.configureOutput({ writeOut: () => undefined, writeErr: (text) => void (said += text) });
    if (command !== program) command.action(() => undefined);
    command.commands.forEach(quiet);
  };
  quiet(program);
  try {
    await program.parseAsync([...args], { from: 'user' });
    return null;
  } catch (error) {
    if (error instanceof CommanderError && ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code))
      return null;
    return (said || (error as Error).message).trim();
  }
}

/** `npm` invocations an example made: each must name a script the repository has (or be ci / install). */
function npmErrors(log: string): string[] {
  return log
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const [verb, script] = line.split(/\s+/);
      if (verb === 'ci' || verb === 'install') return [];
      const name = verb === 'run' ? script : verb;
      return name !== undefined && name in packageScripts ? [] : [`npm ${line}: package.json has no script ${name}`];
    });
}

const examples = docExamples();
const runnable = examples.filter((e) => e.kind !== 'check');
const checked = examples.filter((e) => e.kind === 'check');

describe('the shell examples of README.md and docs/', () => {
  const work = mkdtempSync(join(tmpdir(), 'allocbench-doc-examples-'));
  const logs = join(work, '.logs');

  beforeAll(() => {
    mkdirSync(logs);
    for (const shipped of ['sweeps', 'config', 'rl', 'docs']) symlinkSync(join(root, shipped), join(work, shipped));
    const demo = parseYaml(readFileSync(join(root, 'sweeps', 'demo.yaml'), 'utf8')) as Record<string, unknown>;
    writeSyntheticRun(join(work, 'runs', 'demo'), { ...demo, seeds: '2000-2001' });
    const runs = join(work, 'AlloBench', 'runs');
    const keep = { how: 'tag', commit: true, reply: 'DECISION: KEEP' };
    const claim = { how: 'tool', commit: true, reply: '', toolCalls: [{ name: 'claim_solver', arguments: '{}' }] };
    for (const seed of [2000, 2001, 2002, 2003]) {
      writeDecisionSeed(join(runs, 'urn_haiku_n-announced'), seed, 'R0', [keep], { model_key: 'haiku' });
      writeDecisionSeed(join(runs, 'claim_solver_haiku_n-announced'), seed, 'R1', [claim], { model_key: 'haiku' });
      writeDecisionSeed(join(runs, 'urn_qwen-rl-base-q8_latest_n-announced'), seed, 'R0', [keep, keep], {
        model_key: 'qwen-rl-base-q8:latest',
      });
    }
    const imported = runCliWith({}, ['import', runs, '--out', join(work, 'paper')]);
    expect(imported.status, imported.stderr).toBe(0);
  });

  it('are marked the known ways, and some of each kind are there', () => {
    expect(runnable.length).toBeGreaterThan(20);
    expect(checked.length).toBeGreaterThan(10);
    expect(examples.filter((e) => e.kind === 'estimate').length).toBeGreaterThan(2);
  });

  it(
    'that run offline exit 0 and print what the text says (run and sweep with --estimate where marked)',
    { timeout: 600_000 },
    async () => {
      const failures: string[] = [];
      // The same command in two places (comments aside) runs once: its outputs would collide.
      const distinct = [...new Map(runnable.map((e) => [`${e.kind} ${e.command.split(' # ')[0]?.trim()}`, e])).values()];
      const pages = [...new Set(distinct.map((e) => e.where.split(':')[0]))];
      const runPage = async (page: string | undefined) => {
        for (const example of distinct.filter((e) => e.where.startsWith(`${page}:`))) {
          const npmLog = join(logs, `npm-${example.where.replace(/[^\w]/g, '_')}`);
          const env = cleanEnv({ NPM_LOG: npmLog, ...(example.kind === 'estimate' && { ESTIMATE: '1' }) });
          const outcome = await runShell(`${PRELUDE}\n${example.command}`, work, env);
          const npm = npmErrors(readIfThere(npmLog));
          if (outcome.status !== 0) failures.push(`${example.where}: exit ${outcome.status}: ${example.command}\n${tail(outcome.stderr)}`);
          else if (example.expected !== null && !outcome.stdout.includes(example.expected))
            failures.push(`${example.where}: does not print '${example.expected}': ${example.command}\n${tail(outcome.stdout)}`);
          failures.push(...npm.map((line) => `${example.where}: ${line}`));
        }
      };
      // Two pages at a time, each page's examples in order (a page may write a file its next example reads).
      for (let i = 0; i < pages.length; i += 2) await Promise.all(pages.slice(i, i + 2).map(runPage));
      expect(failures).toEqual([]);
    },
  );

  it('that cannot run here name options the command line has, with values it takes', async () => {
    const failures: string[] = [];
    for (const example of checked) {
      const argvLog = join(logs, `argv-${example.where.replace(/[^\w]/g, '_')}`);
      const npmLog = join(logs, `npm-check-${example.where.replace(/[^\w]/g, '_')}`);
      await runShell(`${RECORDING_PRELUDE}\n${example.command}\nwait`, work, cleanEnv({ ARGV_LOG: argvLog, NPM_LOG: npmLog }));
      const calls = readIfThere(argvLog)
        .split('\x1e')
        .filter(Boolean)
        .map((call) => call.split('\x1f').slice(0, -1));
      if (calls.length === 0 && readIfThere(npmLog) === '' && !isOtherTool(example))
        failures.push(`${example.where}: runs neither allocbench nor npm: ${example.command}`);
      for (const args of calls) {
        const error = await parseError(args);
        if (error !== null) failures.push(`${example.where}: ${error}: ${example.command}`);
      }
      failures.push(...npmErrors(readIfThere(npmLog)).map((line) => `${example.where}: ${line}`));
    }
    expect(failures).toEqual([]);
  });
});

/** Lines that run another tool: a named one, a shell `export`, or a program by its path (one the set-up scripts install). */
const isOtherTool = (example: DocExample) => /^(git|temporal|aws|npx vitest|export) |^[\w.-]*\/\S+ /.test(example.command);

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

const tail = (text: string) => text.trim().split('\n').slice(-5).join('\n');

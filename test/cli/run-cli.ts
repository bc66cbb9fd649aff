import { spawn, spawnSync } from 'node:child_process';
import { ENV_DEFAULTS } from '../../cli/env-defaults.js';
import { cliPath } from '../../infra/project-root.js';

const main = cliPath();

/** The CLI's environment: no keys, addresses or option defaults leak in from the one the tests run in; `env` on top, a variable given as undefined left out. */
function cliEnvironment(env: Record<string, string | undefined>): Record<string, string> {
  const clean = {
    ...process.env,
    TEMPORAL_ADDRESS: '',
    ANTHROPIC_API_KEY: '',
    OPENAI_API_KEY: '',
    GEMINI_API_KEY: '',
    GOOGLE_API_KEY: '',
    ANTHROPIC_BASE_URL: '',
    OPENAI_BASE_URL: '',
    GOOGLE_GEMINI_BASE_URL: '',
    // Nor option defaults.
    ...Object.fromEntries(Object.values(ENV_DEFAULTS).map((name) => [name, undefined])),
  };
  return Object.fromEntries(Object.entries({ ...clean, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

// The flag the bin's shebang passes: isolated-vm (allocbench sandbox) needs it on Node 20+.
const NODE_FLAGS = ['--no-node-snapshot'];

/**
 * Runs the built CLI (npm test builds it first) and returns its exit code and
 * output; `cwd` is its working directory (default: this process's).
 */
export function runCliWith(
  env: Record<string, string | undefined>,
  args: readonly string[],
  cwd?: string,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...NODE_FLAGS, main, ...args], {
    encoding: 'utf8',
    env: cliEnvironment(env),
    ...(cwd && { cwd }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** runCliWith without blocking this process, for commands that run side by side. */
export function runCliAsync(
  env: Record<string, string | undefined>,
  args: readonly string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, main, ...args], { env: cliEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

export function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runCliWith({}, args);
}

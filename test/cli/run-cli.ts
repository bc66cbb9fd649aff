import { spawnSync } from 'node:child_process';
import { ENV_DEFAULTS } from '../../cli/env-defaults.js';
import { cliPath } from '../../infra/project-root.js';

const main = cliPath();

/**
 * Runs the built CLI (npm test builds it first) and returns its exit code and
 * output; a variable given as undefined is left out of its environment, and
 * `cwd` is its working directory (default: this process's).
 */
export function runCliWith(
  env: Record<string, string | undefined>,
  args: readonly string[],
  cwd?: string,
): { status: number | null; stdout: string; stderr: string } {
  // No keys or addresses leak in from the environment the tests run in.
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
  // The flag the bin's shebang passes: isolated-vm (allocbench sandbox) needs it on Node 20+.
  const merged = Object.fromEntries(Object.entries({ ...clean, ...env }).filter(([, value]) => value !== undefined));
  const result = spawnSync(process.execPath, ['--no-node-snapshot', main, ...args], { encoding: 'utf8', env: merged, ...(cwd && { cwd }) });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runCliWith({}, args);
}

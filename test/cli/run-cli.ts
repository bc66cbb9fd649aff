import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Runs the built CLI (npm test builds it first) and returns its exit code and output. */
export function runCliWith(
  env: Record<string, string>,
  args: readonly string[],
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
  };
  // The flag the bin's shebang passes: isolated-vm (allocbench sandbox) needs it on Node 20+.
  const result = spawnSync(process.execPath, ['--no-node-snapshot', main, ...args], { encoding: 'utf8', env: { ...clean, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function runCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runCliWith({}, args);
}

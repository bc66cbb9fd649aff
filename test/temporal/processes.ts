import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath } from '../../infra/project-root.js';

const main = cliPath();

/** Starts the built CLI as its own process group (so a test can kill it together with its children); `cwd`: its working directory (default: this process's). */
export function startCli(args: readonly string[], env: Record<string, string> = {}, cwd?: string): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: '', ...env },
    ...(cwd && { cwd }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return Object.assign(child, { output: () => output });
}

/** SIGKILL to the whole process group: no shutdown hooks run, as in a crash. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // already gone
  }
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

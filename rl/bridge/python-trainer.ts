import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { projectRoot } from '../../infra/project-root.js';

/*
 * The reinforcement-learning trainer is Python (rl/, on PyTorch, transformers
 * and peft), in its own virtual environment that `npm run rl:setup` makes.
 * `allocbench train` and `allocbench serve` run its modules there, and the
 * trainer drives the environment back through `allocbench rl-env`.
 */

const venvPython = () => join(projectRoot(), 'rl', '.venv', 'bin', 'python');

/** Runs `python -m <module> <args>` in the trainer's environment, its output on ours; resolves to its exit code. */
export function runTrainerModule(module: string, args: readonly string[]): Promise<number> {
  const python = venvPython();
  if (!existsSync(python)) throw new InputError(`the trainer's Python environment is not installed (${python}): run npm run rl:setup`);
  const root = projectRoot();
  const child = spawn(python, ['-m', module, ...args], {
    stdio: 'inherit',
    env: { ...process.env, PYTHONPATH: join(root, 'rl'), PYTHONUNBUFFERED: '1' },
  });
  // Ctrl-C reaches the child through the terminal's process group; a kill of this process is passed on.
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.once('SIGTERM', forward('SIGTERM'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 15 : 1)));
  });
}

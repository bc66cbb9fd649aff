import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

/*
 * `npm test`'s last step: the Python trainer's tests (rl/tests, pytest) in its
 * own environment. Without that environment they are skipped, saying so,
 * unless ALLOCBENCH_REQUIRE_RL=1 (CI sets it after npm run rl:setup), which
 * makes a missing environment a failure rather than a quiet skip.
 */
const root = projectRoot();
const python = join(root, 'rl', '.venv', 'bin', 'python');
if (!existsSync(python)) {
  const line = `the trainer's tests need its environment (${python}): npm run rl:setup`;
  if (process.env.ALLOCBENCH_REQUIRE_RL === '1') {
    process.stderr.write(`allocbench: ${line}\n`);
    process.exit(1);
  }
  process.stdout.write(`skipped: ${line}\n`);
  process.exit(0);
}
const result = spawnSync(python, ['-m', 'pytest', join(root, 'rl', 'tests'), '-q'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PYTHONPATH: join(root, 'rl'), PYTHONUNBUFFERED: '1' },
});
process.exit(result.status ?? 1);

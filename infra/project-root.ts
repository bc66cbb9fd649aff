import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file with a package.json (the source tree and dist/ alike). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error('package.json not found above the allocbench sources');
    dir = parent;
  }
  return dir;
}

/** The `allocbench` command as built (infra/bundle-cli.ts): what package.json's bin names, and what a process that runs the CLI starts. */
export function cliPath(): string {
  return join(projectRoot(), 'dist', 'bin', 'allocbench.js');
}

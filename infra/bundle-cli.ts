/*
 * Bundles the CLI at build time (`npm run build`) into dist/bin/allocbench.js,
 * the `allocbench` command: tsc's output (dist/cli/main.js and the ~180
 * modules under it) with the small pure-JS packages every command loads, in a
 * few files instead of about 300. Node then opens, resolves and compiles
 * fewer modules: a command starts about 0.1 CPU-s sooner (a third of
 * `allocbench --help`), which the suite's ~280 CLI processes feel too
 * (docs/testing.md). Each command's own modules stay in chunks loaded when it
 * runs. Packages with native code, the providers' SDKs (loaded lazily) and
 * Temporal's (which its worker loads itself: two copies would not be one
 * class) stay in node_modules.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';
import { cliPath, projectRoot } from './project-root.js';

/** The packages bundled in: many files each, loaded by every command. */
const BUNDLED = new Set(['zod', 'commander', 'yaml', 'lossless-json', '@noble/hashes', 'pure-rand']);

const root = projectRoot();
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name));
const isExternal = (id: string) => id.startsWith('node:') || external.some((name) => id === name || id.startsWith(`${name}/`));

const out = join(cliPath(), '..');
rmSync(out, { recursive: true, force: true });
await build({
  input: join(root, 'dist', 'cli', 'main.js'),
  platform: 'node',
  external: isExternal,
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: 'allocbench.js', chunkFileNames: 'chunks/[name]-[hash].js' },
});

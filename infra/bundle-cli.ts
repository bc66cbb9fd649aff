/*
 * Bundles the CLI at build time (`npm run build`) into dist/bin/allocbench.js,
 * the `allocbench` command: tsc's output of cli/main.ts and every module of
 * ours it imports, with the small pure-JS packages every command loads, in
 * about 50 files instead of about 400, so Node opens, resolves and compiles
 * far fewer (docs/testing.md has what a command's start-up saves). Each
 * command's own modules stay in chunks loaded when it runs. Every other
 * package stays in node_modules: native code, the providers' SDKs (loaded
 * lazily) and Temporal's, which its worker loads itself (two copies would not
 * be one class).
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { build } from 'rolldown';
import { latin1Source } from './latin1-source.js';
import { cliPath, projectRoot } from './project-root.js';

/**
 * The packages bundled in: many files each, loaded by every command; and the
 * bundler's own helpers its output calls (a tagged template's), which are no
 * dependency of ours.
 */
const BUNDLED = new Set(['zod', 'commander', 'yaml', 'lossless-json', '@noble/hashes', 'pure-rand', '@oxc-project/runtime']);

/** A bare specifier's package: `@scope/name` or `name`, whatever path follows. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isExternal = (id: string) => !id.startsWith('.') && !isAbsolute(id) && !BUNDLED.has(packageOf(id));

const out = join(cliPath(), '..');
rmSync(out, { recursive: true, force: true });
const { output } = await build({
  input: join(projectRoot(), 'dist', 'cli', 'main.js'),
  platform: 'node',
  external: isExternal,
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: 'allocbench.js', chunkFileNames: 'chunks/[name]-[hash].js' },
});
// Latin-1 only, so that V8 holds each module's source one byte a character (a command keeps about 1 MB of it).
// Rewritten once written: rolldown fills in some of a chunk's text after its renderChunk hook.
for (const chunk of output) {
  const file = join(out, chunk.fileName);
  writeFileSync(file, latin1Source(readFileSync(file, 'utf8')));
}
// Runnable as ./dist/bin/allocbench.js too (its shebang passes node's flags), as npm makes a bin it links.
chmodSync(cliPath(), 0o755);

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../infra/project-root.js';

/*
 * The shell examples of README.md and docs/*.md, as the doc-example test
 * runs them. A fenced block whose info string starts with `sh` holds
 * commands, one a line (a trailing backslash continues it); a word after
 * `sh` says how the test treats the block:
 *
 *   ```sh                 run offline: each line must exit 0
 *   ```sh estimate        each `allocbench run` or `sweep` runs with --estimate (it would start sessions)
 *   ```sh slow            too slow for the suite: its options are checked, it is not run
 *   ```sh needs-<what>    needs a key, a GPU, a cluster, the network, …: its options are checked, it is not run
 *
 * A line ending in `# => text` must print `text` (on stdout). `npm` lines are
 * never run: the script they name must exist.
 */

export type BlockKind = 'run' | 'estimate' | 'check';

export interface DocExample {
  /** `docs/cli.md:12`: where the example starts. */
  readonly where: string;
  readonly command: string;
  readonly kind: BlockKind;
  /** The block's word after `sh`, if any (`needs-key`, `slow`, `estimate`). */
  readonly marker: string | null;
  /** Text its stdout must contain. */
  readonly expected: string | null;
}

/** The Markdown files whose examples are checked: the README and every page under docs/. */
export function docFiles(root = projectRoot()): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs.sort()];
}

function kindOf(marker: string | null, where: string): BlockKind {
  if (marker === null) return 'run';
  if (marker === 'estimate') return 'estimate';
  if (marker === 'slow' || /^needs-[a-z-]+$/.test(marker)) return 'check';
  throw new Error(`${where}: unknown marker 'sh ${marker}' (sh, sh estimate, sh slow or sh needs-<what>)`);
}

const EXPECTED = /\s#\s*=>\s*(.+)$/;

/** Every shell example of one Markdown file, in order. */
export function examplesIn(file: string, root = projectRoot()): DocExample[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const examples: DocExample[] = [];
  let block: { marker: string | null; kind: BlockKind } | null = null;
  let pending: { start: number; text: string } | null = null;
  lines.forEach((line, index) => {
    const where = `${relative(root, file)}:${index + 1}`;
    if (block === null) {
      const fence = /^```sh(?:\s+(\S+))?\s*$/.exec(line);
      if (fence) block = { marker: fence[1] ?? null, kind: kindOf(fence[1] ?? null, where) };
      else if (/^```(bash|shell|console)\b/.test(line)) throw new Error(`${where}: write shell examples as \`\`\`sh blocks`);
      return;
    }
    if (line.startsWith('```')) {
      block = null;
      return;
    }
    const text = pending ? `${pending.text} ${line.trim()}` : line.trim();
    const start = pending?.start ?? index + 1;
    if (text.endsWith('\\')) {
      pending = { start, text: text.slice(0, -1).trimEnd() };
      return;
    }
    pending = null;
    if (text === '' || text.startsWith('#')) return;
    const expected = EXPECTED.exec(text)?.[1]?.trim() ?? null;
    examples.push({ where: `${relative(root, file)}:${start}`, command: text, kind: block.kind, marker: block.marker, expected });
  });
  return examples;
}

/** The examples of every checked file. */
export const docExamples = (root = projectRoot()): DocExample[] => docFiles(root).flatMap((file) => examplesIn(file, root));

import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { groupArms } from '../../analysis/arms.js';
import { renderFigure, transferSpec } from '../../analysis/figures/index.js';
import { loadRuns } from '../../analysis/load/load-runs.js';
import { transferData } from '../../analysis/report/figure-data.js';
import { toJsonRows, toMarkdown } from '../../analysis/tables/render-table.js';
import { transferTable } from '../../analysis/tables/transfer-table.js';
import { writeTableFiles } from '../../analysis/tables/write-table-files.js';
import { printJson } from '../format.js';
import { resolveModel } from '../model-prefix.js';
import { existingRunLocations } from '../run-locations.js';

interface CompareFlags {
  a?: string;
  b?: string;
  out?: string;
  json?: boolean;
}

/** The run directories and the two model names: the names are the last arguments, unless --a and --b give them. */
function splitArguments(args: readonly string[], flags: CompareFlags): { dirs: string[]; a: string; b: string } {
  const named = [flags.a, flags.b].filter((model) => model !== undefined).length;
  const dirs = args.slice(0, args.length - (2 - named));
  if (dirs.length === 0) throw new InputError('compare: give the run directories, then the two models (or --a and --b)');
  const [first, second] = args.slice(dirs.length);
  const a = flags.a ?? (first as string);
  return { dirs, a, b: flags.b ?? ((flags.a === undefined ? second : first) as string) };
}

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'two models (or checkpoints of one) on paired seeds at every framing both ran: first-sight and Score, B − A with intervals',
    )
    .usage('[options] <run-dir...> <model-a> <model-b>')
    .argument(
      '<arguments...>',
      'run directories holding both arms (or directories of them), then model A and model B, each its id or the start of one (unless --a and --b name them)',
    )
    .option('--a <model>', 'the reference arm, e.g. gguf/models/base.gguf (in place of <model-a>)')
    .option('--b <model>', 'the arm compared with it (in place of <model-b>)')
    .option('--out <dir>', 'also write the table as Markdown, CSV and LaTeX here, and the figure as figures/transfer.svg and .png')
    .option('--json', 'print the table as one JSON object (rates as fractions, intervals as {estimate, low, high})')
    .action(async (args: string[], flags: CompareFlags) => {
      const { dirs, ...names } = splitArguments(args, flags);
      const loaded = await loadRuns(await existingRunLocations(dirs));
      const arms = groupArms(loaded.sessions);
      const models = [...new Set(arms.map((arm) => arm.key.model))];
      const a = resolveModel(names.a, models, 'model A');
      const b = resolveModel(names.b, models, 'model B');
      const table = transferTable(arms, a, b);
      if (flags.json) printJson({ a, b, ...toJsonRows(table), excluded: loaded.exclusions });
      else process.stdout.write(toMarkdown(table));
      if (loaded.exclusions.length > 0 && !flags.json)
        process.stderr.write(
          `${loaded.exclusions.length} sessions or directories excluded, e.g. ${loaded.exclusions[0]?.what}: ${loaded.exclusions[0]?.reason}\n`,
        );
      if (!flags.out) return;
      const out = resolve(flags.out);
      await writeTableFiles(out, table);
      // Figure 4: the same panels, A against B, shaded where B is significantly better.
      const data = transferData(arms, a, b);
      if (!data) return;
      const { svg, png } = await renderFigure(transferSpec(data));
      await mkdir(join(out, 'figures'), { recursive: true });
      await writeFile(join(out, 'figures', 'transfer.svg'), svg);
      await writeFile(join(out, 'figures', 'transfer.png'), png);
    });
}

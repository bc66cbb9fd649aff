import { resolveRunLocation } from '../../run-store/run-location.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { groupArms } from '../../analysis/arms.js';
import { renderFigure, transferSpec } from '../../analysis/figures/index.js';
import { loadRuns } from '../../analysis/load/load-runs.js';
import { transferData } from '../../analysis/report/figure-data.js';
import { toMarkdown } from '../../analysis/tables/render-table.js';
import { transferTable } from '../../analysis/tables/transfer-table.js';
import { writeTableFiles } from '../../analysis/tables/write-table-files.js';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'two models (or checkpoints of one) on paired seeds at every framing both ran: first-sight and Score, B − A with intervals',
    )
    .argument('<run-dir...>', 'run directories holding both arms, or directories of them')
    .requiredOption('--a <model>', 'the reference arm, e.g. gguf/models/base.gguf')
    .requiredOption('--b <model>', 'the arm compared with it')
    .option('--out <dir>', 'also write the table as Markdown, CSV and LaTeX here, and the figure as figures/transfer.svg and .png')
    .action(async (runDirs: string[], flags: { a: string; b: string; out?: string }) => {
      const loaded = await loadRuns(runDirs.map(resolveRunLocation));
      const arms = groupArms(loaded.sessions);
      const table = transferTable(arms, flags.a, flags.b);
      process.stdout.write(toMarkdown(table));
      if (loaded.exclusions.length > 0)
        process.stderr.write(
          `${loaded.exclusions.length} sessions or directories excluded, e.g. ${loaded.exclusions[0]?.what}: ${loaded.exclusions[0]?.reason}\n`,
        );
      if (!flags.out) return;
      const out = resolve(flags.out);
      await writeTableFiles(out, table);
      // Figure 4: the same panels, A against B, shaded where B is significantly better.
      const data = transferData(arms, flags.a, flags.b);
      if (!data) return;
      const { svg, png } = await renderFigure(transferSpec(data));
      await mkdir(join(out, 'figures'), { recursive: true });
      await writeFile(join(out, 'figures', 'transfer.svg'), svg);
      await writeFile(join(out, 'figures', 'transfer.png'), png);
    });
}

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultCacheDir } from '../../analysis/stream-values-cache.js';
import { toJsonRows } from '../../analysis/tables/render-table.js';
import { printJson } from '../format.js';
import { existingRunLocations } from '../run-locations.js';

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description("the paper's tables (Markdown, CSV, LaTeX), figures (SVG, PNG) and an offline HTML report from run directories")
    .argument('<run-dir...>', "run directories (runs/<name>), or directories of them such as an import's --out")
    .requiredOption('--out <dir>', 'where to write the report')
    .option('--json', "also print every table's rows as one JSON object (rates as fractions, intervals as {estimate, low, high})")
    .action(async (runDirs: string[], flags: { out: string; json?: boolean }) => {
      const { writeReport } = await import('../../analysis/report/write-report.js');
      const summary = await writeReport(await existingRunLocations(runDirs), resolve(flags.out), {
        cacheDir: defaultCacheDir(),
        say: (line) => void process.stderr.write(`${line}\n`),
      });
      if (flags.json)
        return printJson({
          report: summary.outDir,
          sessions: summary.sessions,
          tables: summary.tableData.map(toJsonRows),
          figures: summary.figures,
          excluded: summary.excluded,
        });
      process.stdout.write(
        `Report in ${summary.outDir}/index.html: ${summary.sessions} sessions, ${summary.tables.length} tables, ${summary.figures.length} figures` +
          `${summary.exclusions > 0 ? `, ${summary.exclusions} exclusions (see exclusions.md)` : ''}.\n`,
      );
    });
}

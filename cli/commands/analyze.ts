import { resolve } from 'node:path';
import { resolveRunLocation } from '../../run-store/run-location.js';
import type { Command } from 'commander';
import { defaultCacheDir } from '../../analysis/online-optimum.js';
import { writeReport } from '../../analysis/report/write-report.js';

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description("the paper's tables (Markdown, CSV, LaTeX), figures (SVG, PNG) and an offline HTML report from run directories")
    .argument('<run-dir...>', "run directories (runs/<name>), or directories of them such as an import's --out")
    .requiredOption('--out <dir>', 'where to write the report')
    .action(async (runDirs: string[], flags: { out: string }) => {
      const summary = await writeReport(runDirs.map(resolveRunLocation), resolve(flags.out), {
        cacheDir: defaultCacheDir(),
        say: (line) => void process.stderr.write(`${line}\n`),
      });
      process.stdout.write(
        `Report in ${summary.outDir}/index.html: ${summary.sessions} sessions, ${summary.tables.length} tables, ${summary.figures.length} figures` +
          `${summary.exclusions > 0 ? `, ${summary.exclusions} exclusions (see exclusions.md)` : ''}.\n`,
      );
    });
}

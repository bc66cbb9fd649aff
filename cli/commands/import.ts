import type { Command } from 'commander';
import { importArms, type ArmReport } from '../../importer/import-arms.js';
import { printJson } from '../format.js';

function describe(arm: ArmReport): string {
  const reparse = arm.reparse ? `; reparse ${arm.reparse.agree}/${arm.reparse.turns} agree` : '';
  const lines = [
    `${arm.status.padEnd(9)} ${arm.source} → ${arm.runDir} (${arm.model} ${arm.rung}, ${arm.seeds.length} seeds, ${arm.turns} turns${reparse})`,
  ];
  for (const d of arm.summaryDifferences) lines.push(`          seed ${d.seed}: stored ${d.field} ${d.stored}, recomputed ${d.ours}`);
  return lines.join('\n');
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      "read the paper authors' published runs (their runs/, an arm, or an economic cell) into AllocBench run directories, one per arm",
    )
    .argument('<dir...>', "the authors' runs/ directory, or arm or economic-cell directories inside it")
    .requiredOption('--out <dir>', 'where to write the run directories')
    .option('--replace', 'overwrite an earlier import whose source files changed')
    .option('--json', 'print one JSON object: per arm its settings, seeds, turns and the re-read of every stored reply')
    .action(async (dirs: string[], flags: { out: string; replace?: boolean; json?: boolean }) => {
      const report = await importArms(dirs, flags.out, { replace: Boolean(flags.replace) });
      if (flags.json) printJson(report);
      else for (const arm of report.arms) process.stdout.write(`${describe(arm)}\n`);
      for (const error of report.errors) process.stderr.write(`allocbench: import: ${error}\n`);
      if (report.errors.length > 0) process.exitCode = 2;
    });
}

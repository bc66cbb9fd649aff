import type { Command } from 'commander';
import { EXIT } from '../exit-status.js';
import { printJson } from '../format.js';
import type { ArmReport } from '../../importer/import-arms.js';

function describe(arm: ArmReport): string {
  const reparse = arm.reparse ? `; reparse ${arm.reparse.agree}/${arm.reparse.turns} agree` : '';
  const lines = [
    `${arm.status.padEnd(9)} ${arm.source} → ${arm.runDir} (${arm.model} ${arm.rung}, ${arm.seeds.length} seeds, ${arm.turns} turns${reparse})`,
  ];
  for (const d of arm.summaryDifferences) lines.push(`          seed ${d.seed}: stored ${d.field} ${d.stored}, recomputed ${d.ours}`);
  for (const u of arm.unknownReadings)
    lines.push(
      `          seed ${u.seed} turn ${u.turn}: reading '${u.how}' is not one the authors' harness writes; stored decision kept, counted as unparsed`,
    );
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
    .addHelpText(
      'after',
      `
Exit status:
  0  every arm and seed found was imported
  2  bad input (no such directory), or no arm could be imported
  3  some arm or seed could not be read and was left out, one line each on
     stderr naming the file; every other arm was imported`,
    )
    .action(async (dirs: string[], flags: { out: string; replace?: boolean; json?: boolean }) => {
      const { importArms, leftSomethingOut } = await import('../../importer/import-arms.js');
      const report = await importArms(dirs, flags.out, { replace: Boolean(flags.replace) });
      if (flags.json) printJson(report);
      else for (const arm of report.arms) process.stdout.write(`${describe(arm)}\n`);
      for (const error of report.errors) process.stderr.write(`allocbench: import: ${error}\n`);
      for (const line of report.arms.flatMap((arm) => arm.skipped)) process.stderr.write(`allocbench: import: skipped ${line}\n`);
      if (report.arms.length === 0) process.exitCode = EXIT.usage;
      else if (leftSomethingOut(report)) process.exitCode = EXIT.incomplete;
    });
}

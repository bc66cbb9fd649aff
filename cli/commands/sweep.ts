import type { Command } from 'commander';
import { loadSweep } from '../../client/load-sweep.js';
import { addExecutionOptions, type ExecutionFlags } from './sweep-options.js';

/** Each --model given, in order (the option repeats). */
const collect = (value: string, previous: readonly string[] = []) => [...previous, value];

export function registerSweep(program: Command): void {
  addExecutionOptions(
    program
      .command('sweep')
      .description('run (or resume) a sweep described by a YAML or JSON file')
      .argument(
        '<file>',
        'sweep file: name, models (or agent: {kind: split, planner, builder}), rungs, seeds, budgets, charges, reskins, announceN, arms, ... (allocbench schema sweep prints them all)',
      )
      .option(
        '--model <provider/model>',
        "run these models instead of the file's (repeat for several); the sweep's name and run directory gain their names",
        collect,
      ),
  ).action(async (file: string, flags: ExecutionFlags & { model?: string[] }) => {
    const config = await loadSweep(file, {
      ...(flags.model && { models: flags.model }),
      ...(flags.unitCap !== undefined && { unitCap: flags.unitCap }),
      ...(flags.cap !== undefined && { runCap: flags.cap }),
      ...(flags.prices !== undefined && { prices: flags.prices }),
    });
    const { executeSweep } = await import('./execute-sweep.js');
    await executeSweep(config, flags);
  });
}

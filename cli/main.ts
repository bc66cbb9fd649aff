#!/usr/bin/env -S node --no-node-snapshot
import { Command, CommanderError } from 'commander';
import { InputError } from '../core/errors.js';
import { registerAnalyze } from './commands/analyze.js';
import { registerAudit } from './commands/audit.js';
import { registerCompare } from './commands/compare.js';
import { registerImport } from './commands/import.js';
import { registerPanel } from './commands/panel.js';
import { registerRun } from './commands/run.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerSimulate } from './commands/simulate.js';
import { registerSolve } from './commands/solve.js';
import { registerStatus } from './commands/status.js';
import { registerStream } from './commands/stream.js';
import { registerSweep } from './commands/sweep.js';
import { registerWorker } from './commands/worker.js';

/** Usage errors (bad flags, bad input) exit 2; anything else that fails exits 1. */
const USAGE_ERROR = 2;

const program = new Command('allocbench')
  .description('AllocBench: does an agent spend a limited tool-building budget well?')
  .exitOverride();
registerSolve(program);
registerStream(program);
registerSimulate(program);
registerSandbox(program);
registerPanel(program);
registerRun(program);
registerSweep(program);
registerStatus(program);
registerAudit(program);
registerImport(program);
registerAnalyze(program);
registerCompare(program);
registerWorker(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its one-line message (or the help text).
    const informational = ['commander.helpDisplayed', 'commander.help', 'commander.version'];
    return informational.includes(error.code) ? 0 : USAGE_ERROR;
  }
  if (error instanceof InputError) {
    process.stderr.write(`allocbench: ${error.message}\n`);
    return USAGE_ERROR;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`allocbench: internal error: ${message}\n`);
  if (process.env.ALLOCBENCH_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return 1;
}

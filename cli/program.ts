import { Command } from 'commander';
import { registerAnalyze } from './commands/analyze.js';
import { registerAudit } from './commands/audit.js';
import { registerCancel } from './commands/cancel.js';
import { registerCompare } from './commands/compare.js';
import { registerImport } from './commands/import.js';
import { registerPanel } from './commands/panel.js';
import { registerRlEnv } from './commands/rl-env.js';
import { registerTrain } from './commands/train.js';
import { registerView } from './commands/view.js';
import { registerRescore } from './commands/rescore.js';
import { registerRun } from './commands/run.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerSchema } from './commands/schema.js';
import { registerSimulate } from './commands/simulate.js';
import { registerSolve } from './commands/solve.js';
import { registerStatus } from './commands/status.js';
import { registerStream } from './commands/stream.js';
import { registerSweep } from './commands/sweep.js';
import { registerWorker } from './commands/worker.js';
import { runVersions } from '../infra/run-versions.js';

/**
 * The allocbench command and every subcommand, parsed but not yet run (tests check examples' options against it).
 * Every process defines every command, so a command module imports at its top only what its options need; what its
 * action needs (Temporal, the viewer, the sandbox, the report) it imports when it runs. `allocbench --help` then
 * costs about 0.4 CPU-s instead of 0.9, and a refused sweep file never loads Temporal.
 */
export function buildProgram(): Command {
  const program = new Command('allocbench')
    .description('AllocBench: does an agent spend a limited tool-building budget well?')
    .version(runVersions().allocbench, '-V, --version', 'print the version')
    .exitOverride();
  for (const register of [
    registerSolve,
    registerStream,
    registerSimulate,
    registerSandbox,
    registerPanel,
    registerRun,
    registerSweep,
    registerStatus,
    registerCancel,
    registerAudit,
    registerRescore,
    registerImport,
    registerAnalyze,
    registerCompare,
    registerView,
    registerWorker,
    registerTrain,
    registerRlEnv,
    registerSchema,
  ])
    register(program);
  return program;
}

#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --no-node-snapshot --max-semi-space-size=4
import { Command, CommanderError } from 'commander';
import { InputError } from '../core/errors.js';
import { redactSecrets } from '../secrets/redact.js';
import { describeFilesystemFault, filesystemFaultOf } from '../run-store/store-errors.js';
import { registerAnalyze } from './commands/analyze.js';
import { registerAudit } from './commands/audit.js';
import { registerCancel } from './commands/cancel.js';
import { registerCompare } from './commands/compare.js';
import { registerImport } from './commands/import.js';
import { registerPanel } from './commands/panel.js';
import { registerRlEnv } from './commands/rl-env.js';
import { registerTrain } from './commands/train.js';
import { registerRescore } from './commands/rescore.js';
import { registerRun } from './commands/run.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerSimulate } from './commands/simulate.js';
import { registerSolve } from './commands/solve.js';
import { registerStatus } from './commands/status.js';
import { registerStream } from './commands/stream.js';
import { registerSweep } from './commands/sweep.js';
import { registerWorker } from './commands/worker.js';
import { EXIT, IncompleteRunError } from './exit-status.js';

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
registerCancel(program);
registerAudit(program);
registerRescore(program);
registerImport(program);
registerAnalyze(program);
registerCompare(program);
registerWorker(program);
registerTrain(program);
registerRlEnv(program);

// A full file-size limit (ulimit -f) must fail the write with EFBIG, reported as a full disk, not kill the
// process: Node ignores SIGXFSZ, but a library that listens for it and stops listening restores the default.
process.on('SIGXFSZ', () => undefined);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its one-line message (or the help text).
    const informational = ['commander.helpDisplayed', 'commander.help', 'commander.version'];
    return informational.includes(error.code) ? 0 : EXIT.usage;
  }
  if (error instanceof IncompleteRunError) return EXIT.incomplete; // the sessions are already listed
  // Whatever a message quotes (a server's reply, a URL), no configured key or credential-shaped text reaches the terminal.
  const say = (line: string) => process.stderr.write(`allocbench: ${redactSecrets(line)}\n`);
  if (error instanceof InputError) {
    for (const line of error.message.split('\n')) say(line); // one line per error
    return EXIT.usage;
  }
  const fault = filesystemFaultOf(error);
  if (fault) {
    say(describeFilesystemFault(fault));
    return EXIT.usage;
  }
  say(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  if (process.env.ALLOCBENCH_DEBUG && error instanceof Error) process.stderr.write(`${redactSecrets(error.stack ?? '')}\n`);
  return EXIT.internal;
}

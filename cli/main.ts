#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --no-node-snapshot --max-semi-space-size=4 --heap-growing-percent=60
/*
 * The environment and Node's flags, in the shebang so that `allocbench` always runs with them (the Temporal benches
 * pass the same). isolated-vm needs no startup snapshot. The rest keeps memory a sweep does not need
 * (docs/benchmarks.md has the figures): two malloc arenas and 4 MiB semi-spaces; glibc's mmap threshold held at its
 * 128 KiB default, where it would rise to the largest block freed (up to 32 MiB) and keep every freed block below that
 * in the process; and V8's old generation growing by 60% of what a full collection left, where it allows up to four
 * times on a heap this small.
 */
import { CommanderError } from 'commander';
import { InputError } from '../core/errors.js';
import { redactSecrets } from '../secrets/redact.js';
import { describeFilesystemFault, filesystemFaultOf } from '../run-store/store-errors.js';
import { EXIT, IncompleteRunError } from './exit-status.js';
import { loadDotEnv } from './dot-env.js';
import { buildProgram } from './program.js';

const program = buildProgram();

// A full file-size limit (ulimit -f) must fail the write with EFBIG, reported as a full disk, not kill the
// process: Node ignores SIGXFSZ, but a library that listens for it and stops listening restores the default.
process.on('SIGXFSZ', () => undefined);

// A reader that closed the pipe (`allocbench status --watch | head -1`) wants no more: end quietly, as a shell pipeline expects.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}

try {
  // Before parsing: options read their ALLOCBENCH_* defaults from the environment.
  loadDotEnv();
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

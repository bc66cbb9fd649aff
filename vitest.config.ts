import { defineConfig } from 'vitest/config';
import { ONLINE_TEST_CACHE } from './test/online-test-cache.js';
import { LongestFirst } from './test/setup/file-order.js';

/**
 * Files that must have the cores to themselves: they run after every other
 * file has finished. script-sandbox loads the cores on purpose, to show that a
 * script's CPU time limit holds beside busy processes. It and sandbox-cli
 * expect scripts to reach their CPU time limit before the wall-clock guard (ten
 * times it), which a script starved below a tenth of a core does not: among the
 * other files, beside two busy processes, both were seen stopped by the guard.
 */
const ALONE = ['test/sandbox/script-sandbox.test.ts', 'test/cli/sandbox-cli.test.ts'];

/** What every test file runs with. */
const common = {
  // Timeouts guard against hangs; they are no speed checks. Sized for a busy machine: the suite passes on two cores shared
  // with two other CPU-bound processes (docs/testing.md), where a file takes two to three times as long as on a quiet one.
  testTimeout: 300_000,
  hookTimeout: 300_000,
  // isolated-vm (the R3 sandbox) needs it on Node 20+; test files run in forked processes.
  execArgv: ['--no-node-snapshot'],
  // Values computed from streams (policy/optimal's nets, policy/bayes's collection) in one cache for every test and the CLI
  // they run, policy/optimal's warmed for the panel.
  env: { ALLOCBENCH_CACHE_DIR: ONLINE_TEST_CACHE },
  // Each file's CPU seconds, for npm run test:profile; each file's environment variables undone after it.
  setupFiles: ['test/setup/cpu-per-file.ts', 'test/setup/file-environment.ts'],
};

export default defineConfig({
  test: {
    // Longest files first, from the committed table, on a fresh clone as on a machine that has run the suite before.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          ...common,
          name: 'suite',
          // A worker process runs file after file (each file's own module, the modules under it loaded once): a fresh
          // process per file cost about 100 CPU-s of start-up and imports over the suite (docs/testing.md).
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          // Before its files: the warm online-optimum cache, a Temporal dev server per worker, the shared fixtures' directory (test/setup/).
          globalSetup: ['test/setup/before-suite.ts'],
          // Test files side by side: most of an integration file's time is spent waiting on servers, processes and
          // timers, so six forked workers keep two cores busy (docs/testing.md has the measurements).
          // ALLOCBENCH_TEST_WORKERS sets another count (a machine with more cores).
          maxWorkers: Number(process.env.ALLOCBENCH_TEST_WORKERS) || 6,
        },
      },
      { test: { ...common, name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});

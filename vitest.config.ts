import { defineConfig } from 'vitest/config';
import { ONLINE_TEST_CACHE } from './test/online-test-cache.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // Setup hooks start servers and import the paper's runs: seconds here, several times that on a loaded 2-core CI machine.
    hookTimeout: 120_000,
    // isolated-vm (the R3 sandbox) needs it on Node 20+; test files run in forked processes.
    execArgv: ['--no-node-snapshot'],
    // policy/optimal's nets (the online Score's denominator) in one cache for every test and the CLI they run, warmed for the panel.
    env: { ALLOCBENCH_CACHE_DIR: ONLINE_TEST_CACHE },
    globalSetup: ['test/online-cache-setup.ts', 'test/setup/temporal-servers.ts', 'test/setup/fixtures-dir.ts'],
    // Each file's CPU seconds, for npm run test:profile.
    setupFiles: ['test/setup/cpu-per-file.ts'],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // isolated-vm (the R3 sandbox) needs it on Node 20+; test files run in forked processes.
    execArgv: ['--no-node-snapshot'],
  },
});

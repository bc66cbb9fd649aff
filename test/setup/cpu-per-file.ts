import { afterAll } from 'vitest';
import { cpuSeconds } from '../../infra/process-stats.js';

/** Set up before each test file: its CPU seconds, from here (before its import) to its end, for the profile (infra/test-reporter.ts). */
const total = () => cpuSeconds().self + cpuSeconds().children;
const start = total();
afterAll(({}, file) => {
  file.meta.cpuS = Math.round((total() - start) * 10) / 10;
});

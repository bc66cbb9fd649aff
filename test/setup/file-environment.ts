import { afterAll } from 'vitest';

/*
 * Set up before each test file: the environment variables it sets (a loopback's
 * base URL, a key, an S3 server's endpoint) are undone after it. Test files
 * share their worker process (vitest.config.ts: isolate false), so what one
 * file sets would otherwise reach the files after it.
 */
const before = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
  Object.assign(process.env, before);
});

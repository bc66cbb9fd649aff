import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { runCli, runCliWith } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-view-cli-'));
let occupied: Server | undefined;

afterAll(() => occupied?.close());

/** A failed start is one line on stderr, no stack, exit 2. */
function expectOneLine(result: { status: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('allocbench view: bad input', () => {
  it('refuses a directory that is not a run and holds none', () => {
    const empty = join(dir, 'not-a-run');
    mkdirSync(join(empty, 'sessions'), { recursive: true });
    expectOneLine(runCli('view', empty, '--port', '0'), /not-a-run: not a run directory \(no manifest.json\) and holds none/);
  });

  it('refuses an S3 prefix it has no credentials for', () => {
    const result = runCliWith(
      {
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_SESSION_TOKEN: '',
        AWS_PROFILE: '',
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'),
        AWS_CONFIG_FILE: join(dir, 'none'),
        AWS_EC2_METADATA_DISABLED: 'true',
        // Nothing listens here: a request that went out anyway would fail otherwise than on credentials.
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      },
      ['view', 's3://allocbench-view/runs', '--port', '0'],
    );
    expectOneLine(result, /s3:\/\/allocbench-view\/runs.*CredentialsProviderError/);
  });

  it('refuses a port in use', async () => {
    const run = join(dir, 'run');
    writeSyntheticRun(run, { name: 'view-cli', models: ['policy/eager'], rungs: ['R0'], seeds: [2000], stream: { length: 12 } });
    occupied = createServer();
    const port = await new Promise<number>((resolve) =>
      (occupied as Server).listen(0, '127.0.0.1', () => resolve(((occupied as Server).address() as { port: number }).port)),
    );
    expectOneLine(runCli('view', run, '--port', String(port)), new RegExp(`port ${port} on 127.0.0.1 is in use; pick another with --port`));
  });

  it('refuses a port that is not one', () => {
    expectOneLine(runCli('view', join(dir, 'run'), '--port', 'eighty'), /--port: 'eighty' is not a port/);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './ports.js';
import { projectRoot } from './project-root.js';

/*
 * A real S3-compatible server on loopback for the run store's tests and
 * benches: moto's server from infra/s3/.venv (npm run s3:setup, which the
 * suite's global set-up runs), on a free port. This process and every CLI process it
 * starts reach it through the standard AWS environment variables, which this sets.
 */

const server = join(projectRoot(), 'infra', 's3', '.venv', 'bin', 'moto_server');

export interface S3Server {
  readonly endpoint: string;
  /** The AWS environment a CLI process needs to reach it. */
  readonly env: Record<string, string>;
  /** A fresh bucket, as s3://<bucket>. */
  bucket(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
  if (!existsSync(server)) throw new Error(`${server} is missing: run npm run s3:setup (bash infra/s3/setup.sh)`);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // Its log (a line per request) goes to a file: a pipe left unread while this process waits on a child (spawnSync) fills, and the server stops.
  const logFile = join(mkdtempSync(join(tmpdir(), 'allocbench-s3-')), 'moto.log');
  const log = openSync(logFile, 'w');
  const child: ChildProcess = spawn(server, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', log, log] });
  closeSync(log);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode}); its log: ${logFile}`);
    const ready = await fetch(`${endpoint}/moto-api/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`moto_server did not answer on ${endpoint} within 30 s; its log: ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const env = {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'allocbench-test',
    AWS_SECRET_ACCESS_KEY: 'allocbench-test-secret',
    AWS_REGION: 'us-east-1',
  };
  Object.assign(process.env, env, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  const client = new S3Client({ endpoint, forcePathStyle: true, region: env.AWS_REGION });
  return {
    endpoint,
    env,
    async bucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return `s3://${name}`;
    },
    async stop() {
      client.destroy();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}

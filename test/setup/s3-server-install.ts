import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.js';

/**
 * Installs the S3-compatible server the run store's tests start
 * (infra/s3/setup.sh, as npm run s3:setup does): a few seconds on a fresh
 * clone, nothing once its environment is up to date. Rejects with the script's
 * one-line reason.
 */
export function installS3Server(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(projectRoot(), 'infra', 's3', 'setup.sh')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(stderr.trim() || `infra/s3/setup.sh exited with ${code}`))));
  });
}

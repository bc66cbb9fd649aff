import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.js';
import { ONLINE_TEST_CACHE } from '../online-test-cache.js';

/**
 * Starts warming policy/optimal's nets on the panel's streams into the test
 * cache (bench/warm-online-cache.ts, built: about 30 CPU-s on a fresh machine,
 * nothing once the cache holds them) in a process of its own, so the test
 * files start meanwhile: the first ones mostly wait on servers, and one that
 * needs the table waits for this solve instead of solving it again. `done`
 * rejects with the script's last line; `stop` ends it early.
 */
export function warmOnlineCache(): { done: Promise<void>; stop: () => void } {
  const script = join(projectRoot(), 'dist', 'bench', 'warm-online-cache.js');
  const child = spawn(process.execPath, [script, ONLINE_TEST_CACHE], { stdio: ['ignore', 'ignore', 'pipe'] });
  const done = new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const why = stderr.trim().split('\n').at(-1);
      if (code === 0) resolve();
      else reject(new Error(`the online cache's warm-up (${script}) exited with ${code ?? signal}${why ? `: ${why}` : ''}`));
    });
  });
  return { done, stop: () => child.kill() };
}

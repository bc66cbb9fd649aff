import { parentPort } from 'node:worker_threads';
import { defaultCacheDir } from '../analysis/stream-values-cache.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { onlineOptimaOf } from '../analysis/run-results.js';
import type { OptimumJob } from './optimum-jobs.js';
import { turnOptima } from './turn-optimum.js';

/*
 * policy/optimal's work for the viewer, off the server's thread: solving its
 * table takes up to minutes the first time per setting (npm run bench:dp),
 * and the pages must keep answering meanwhile. One job at a time; the tables
 * stay in this thread's memory for the next job of the same setting.
 */
async function run(job: OptimumJob): Promise<unknown> {
  switch (job.kind) {
    case 'turns':
      return turnOptima(job.classes, job.setting, job.decisions);
    case 'nets': {
      const nets = await onlineOptimaOf(openRunStore(job.location), job.summaries, { cacheDir: defaultCacheDir() });
      return [...nets];
    }
  }
}

parentPort?.on('message', (message: { id: number; job: OptimumJob }) => {
  run(message.job).then(
    (result) => parentPort?.postMessage({ id: message.id, result }),
    (error: unknown) =>
      parentPort?.postMessage({ id: message.id, error: (error instanceof Error ? error.message : String(error)).split('\n')[0] }),
  );
});

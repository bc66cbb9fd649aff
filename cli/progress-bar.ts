import { SingleBar } from 'cli-progress';
import type { ProgressListener } from '../client/sweep-progress.js';

/** A progress bar on stderr while a sweep runs (terminals only): the listener to give the sweep, and how to take the bar down. */
export function progressBar(total: number): { readonly listener: ProgressListener | undefined; stop(): void } {
  if (!process.stderr.isTTY) return { listener: undefined, stop: () => undefined };
  const bar = new SingleBar({
    format:
      'sessions finished {bar} {value}/{total} · running {running} · stopped by the cap {stopped} · mechanical failures {mechanical} · calls throttled {throttled} · spent {spent} · {duration_formatted}',
    stream: process.stderr,
    hideCursor: true,
  });
  bar.start(total, 0, { running: 0, stopped: 0, mechanical: 0, throttled: 0, spent: '–' });
  return {
    listener: (progress, spend) =>
      bar.update(progress.finished, {
        running: progress.running,
        stopped: progress.stopped,
        mechanical: progress.mechanicalFailures,
        ...spend,
      }),
    stop: () => bar.stop(),
  };
}

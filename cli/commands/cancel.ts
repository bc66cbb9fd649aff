import type { Command } from 'commander';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { readManifest } from '../../run-store/manifest.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { readSweepSummaries } from '../../run-store/sweep-summaries.js';
import { integerIn } from '../options.js';

/** The run's sessions as a cancel leaves them: finished, recorded as cancelled, begun and not cancelled, not begun. */
async function sessionStates(runDir: string) {
  const store = openRunStore(runDir);
  const { config } = await readManifest(store);
  const readings = await readSweepSummaries(store, expandSweep(config));
  const unfinished = await Promise.all(
    readings
      .filter((reading) => !reading.summary)
      .map(async ({ spec }) =>
        (await store.hasTranscript(spec)) ? ((await store.readTranscript(spec)).cancelled ? 'cancelled' : 'begun') : 'waiting',
      ),
  );
  const count = (state: string) => unfinished.filter((s) => s === state).length;
  return {
    name: config.name,
    total: readings.length,
    finished: readings.length - unfinished.length,
    cancelled: count('cancelled'),
    begun: count('begun'),
    waiting: count('waiting'),
  };
}

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description(
      'cancel a running sweep (or run) and every session it started: each records in its transcript that it was cancelled, after everything it had recorded; running the same sweep again resumes them',
    )
    .argument('<run>', 'run directory or s3://bucket/prefix')
    .option(
      '--temporal-port <port>',
      "with nothing running the run: gRPC port of the embedded Temporal dev server started on the run's state",
      integerIn(1024, 64_535),
      7233,
    )
    .action(async (run: string, flags: { temporalPort: number }) => {
      const { cancelRun } = await import('../sweep-cancel.js');
      const runDir = resolveRunLocation(run);
      const found = await cancelRun(runDir, flags.temporalPort, (line) => process.stderr.write(`${line}\n`));
      const s = await sessionStates(runDir);
      const what = found.sweep || found.sessions > 0 ? 'cancelled' : 'nothing was running';
      process.stdout.write(
        `${s.name}: ${what}; ${s.finished}/${s.total} sessions finished, ${s.cancelled} recorded as cancelled, ${s.waiting} not begun` +
          (s.begun > 0 ? `, ${s.begun} begun and not recorded as cancelled` : '') +
          '.\n' +
          (s.finished < s.total ? 'Run the same sweep command again to resume them.\n' : ''),
      );
    });
}

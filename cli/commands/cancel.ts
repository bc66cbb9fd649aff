import type { Command } from 'commander';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { readManifest } from '../../run-store/manifest.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { countStates, describeProgress, readSessionStates } from '../../run-store/session-states.js';
import { integerIn } from '../options.js';
import { TEMPORAL_PORT_HELP } from './sweep-options.js';

export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description(
      'cancel a running sweep (or run) and every session it started: each records that it was cancelled (in its transcript, after everything it had recorded, and in its summary); running the same sweep again goes on with them',
    )
    .argument('<run>', 'run directory or s3://bucket/prefix')
    .option(
      '--temporal-port <port>',
      `with nothing running the run, for the embedded server started on its state: ${TEMPORAL_PORT_HELP}`,
      integerIn(1024, 64_535),
    )
    .action(async (run: string, flags: { temporalPort?: number }) => {
      const { cancelRun } = await import('../../client/cancel-sweep.js');
      const runDir = resolveRunLocation(run);
      const found = await cancelRun(runDir, flags.temporalPort, (line) => process.stderr.write(`${line}\n`));
      const store = openRunStore(runDir);
      const { config } = await readManifest(store);
      const states = countStates((await readSessionStates(store, expandSweep(config))).map((reading) => reading.state));
      const what = found.sweep || found.sessions > 0 ? 'cancelled' : 'nothing was running';
      process.stdout.write(
        `${config.name}: ${what}; ${describeProgress(states)}.\n` +
          (states.finished < expandSweep(config).length ? 'Run the same sweep command again to go on with them.\n' : ''),
      );
    });
}

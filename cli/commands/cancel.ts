import type { Command } from 'commander';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { describeProgress } from '../../run-store/session-states.js';
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
      const { cancelSweep } = await import('../../client/cancel-sweep.js');
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const outcome = await cancelSweep(resolveRunLocation(run), {
        ...(flags.temporalPort !== undefined && { temporalPort: flags.temporalPort }),
        say,
      });
      const what = outcome.sweep || outcome.sessions > 0 ? 'cancelled' : 'nothing was running';
      const total = Object.values(outcome.states).reduce((sum, n) => sum + n, 0);
      process.stdout.write(
        `${outcome.name}: ${what}; ${describeProgress(outcome.states)}.\n` +
          (outcome.states.finished < total ? 'Run the same sweep command again to go on with them.\n' : ''),
      );
    });
}

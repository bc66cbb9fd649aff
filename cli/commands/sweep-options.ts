import { Option, type Command } from 'commander';
import { REPLAY_MISSES } from '../../core/sweep/sweep-config.js';
import { EXIT_STATUS_HELP } from '../exit-status.js';
import { integerIn, numberIn } from '../options.js';
import { ENV_DEFAULTS } from '../env-defaults.js';
import { DEFAULT_TEMPORAL_PORT, UI_OFFSET } from '../../infra/ports.js';

/** --temporal-port, of `run`, `sweep` and `cancel`. */
export const TEMPORAL_PORT_HELP =
  `gRPC port of the embedded Temporal dev server, its Web UI on port + ${UI_OFFSET} (default: ${DEFAULT_TEMPORAL_PORT}, ` +
  `or free ports when ${DEFAULT_TEMPORAL_PORT} or ${DEFAULT_TEMPORAL_PORT + UI_OFFSET} is taken); a port given that is taken is refused`;

/** How a run or sweep reaches Temporal and reports, shared by `run` and `sweep`. */
export interface ExecutionFlags {
  temporalPort?: number;
  unitCap?: number;
  cap?: number;
  worker: boolean;
  json?: boolean;
  out?: string;
  prices?: string;
  estimate?: boolean;
  keepHistory?: boolean;
  replayFrom?: string;
  replayMiss?: (typeof REPLAY_MISSES)[number];
}

export function addExecutionOptions(command: Command): Command {
  return command
    .option('--out <dir>', 'run directory, or s3://bucket/prefix (default: runs/<name>)')
    .addOption(
      new Option('--unit-cap <usd>', "cost cap per session (seed) in USD (a sweep file's unitCap)")
        .argParser(numberIn(0, 1e6, { exclusiveMin: true }))
        .env(ENV_DEFAULTS.unitCap),
    )
    .addOption(
      new Option('--cap <usd>', "cost cap for the whole run in USD, over every worker (a sweep file's runCap)")
        .argParser(numberIn(0, 1e6, { exclusiveMin: true }))
        .env(ENV_DEFAULTS.cap),
    )
    .addOption(new Option('--temporal-port <port>', TEMPORAL_PORT_HELP).argParser(integerIn(1024, 64_535)).env(ENV_DEFAULTS.temporalPort))
    .option('--no-worker', 'with TEMPORAL_ADDRESS: start no workers here, rely on `allocbench worker` elsewhere')
    .addOption(
      new Option('--prices <file>', 'price table, USD per million tokens per model (default: config/prices.yaml)').env(ENV_DEFAULTS.prices),
    )
    .option(
      '--keep-history',
      "keep the embedded server's Temporal files (temporal/) once every session completed; by default they are removed then",
    )
    .option('--estimate', "print a dry-run estimate of the sweep's tokens and cost, and start nothing")
    .option(
      '--replay-from <run>',
      'answer every model call from this recorded run (a directory or s3://bucket/prefix): the reply of the same session, turn and attempt, if the request is the same',
    )
    .addOption(
      new Option(
        '--replay-miss <what>',
        'with --replay-from, a call the recorded run has no reply to: error (a recorded provider error, the default) or live (ask the live model)',
      ).choices(REPLAY_MISSES),
    )
    .option('--json', 'print one JSON object')
    .addHelpText('after', EXIT_STATUS_HELP);
}

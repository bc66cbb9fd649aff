import type { Command } from 'commander';
import { EXIT_STATUS_HELP } from '../exit-status.js';
import { integerIn } from '../options.js';

/** How a run or sweep reaches Temporal and reports, shared by `run` and `sweep`. */
export interface ExecutionFlags {
  temporalPort: number;
  worker: boolean;
  json?: boolean;
  out?: string;
  prices?: string;
  estimate?: boolean;
  keepHistory?: boolean;
}

export function addExecutionOptions(command: Command): Command {
  return command
    .option('--out <dir>', 'run directory, or s3://bucket/prefix (default: runs/<name>)')
    .option(
      '--temporal-port <port>',
      'gRPC port of the embedded Temporal dev server; its Web UI is on port + 1000',
      integerIn(1024, 64_535),
      7233,
    )
    .option('--no-worker', 'with TEMPORAL_ADDRESS: start no workers here, rely on `allocbench worker` elsewhere')
    .option('--prices <file>', 'price table, USD per million tokens per model (default: config/prices.yaml)')
    .option(
      '--keep-history',
      "keep the embedded server's Temporal files (temporal/) once every session completed; by default they are removed then",
    )
    .option('--estimate', "print a dry-run estimate of the sweep's tokens and cost, and start nothing")
    .option('--json', 'print one JSON object')
    .addHelpText('after', EXIT_STATUS_HELP);
}

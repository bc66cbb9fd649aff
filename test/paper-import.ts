import { join } from 'node:path';
import { runCli } from './cli/run-cli.js';
import { PAPER_RUNS } from './paper-artifacts.js';
import { sharedFixture } from './shared-fixture.js';

/** A CLI command's result, as a reader of a shared fixture checks it. */
export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `allocbench import --json` of the paper's stored runs into `runs`, once per
 * test run, shared read-only by the files that read the import (import-cli,
 * the paper's values): its result says how the import went, for each reader to check.
 */
export async function paperImport(): Promise<{ runs: string; result: CliResult }> {
  const { dir, value } = await sharedFixture('paper-import', (dir) => runCli('import', PAPER_RUNS, '--out', join(dir, 'runs'), '--json'));
  return { runs: join(dir, 'runs'), result: value };
}

/** Then one `allocbench analyze` of the import as a whole (as a researcher would), into `report`. */
export async function paperReport(): Promise<{ runs: string; imported: CliResult; report: string; analyzed: CliResult }> {
  const { runs, result: imported } = await paperImport();
  const { dir, value } = await sharedFixture('paper-report', (dir) => runCli('analyze', runs, '--out', join(dir, 'report')));
  return { runs, imported, report: join(dir, 'report'), analyzed: value };
}

import { resolve } from 'node:path';
import type { SweepConfig } from '../../core/sweep/sweep-config.js';
import { printJson } from '../format.js';
import { resultsTable, runJson } from '../print-results.js';
import { readRunResults } from '../run-results.js';
import { runSweep } from '../sweep-runner.js';
import type { ExecutionFlags } from './sweep-options.js';

/** Runs a sweep and reports it: a table (or one JSON object) on stdout, where things are on stderr. */
export async function executeSweep(config: SweepConfig, flags: ExecutionFlags): Promise<void> {
  const runDir = resolve(flags.out ?? `runs/${config.name}`);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(`Sweep ${config.name}: run directory ${runDir}`);
  const progress = await runSweep(config, {
    runDir,
    temporalPort: flags.temporalPort,
    inProcessWorkers: flags.worker,
    progressBar: !flags.json,
    say,
  });
  const results = await readRunResults(runDir);
  if (flags.json) return printJson(runJson(results));
  process.stdout.write(`${resultsTable(results)}\n`);
  const failed = progress.failed > 0 ? ` · ${progress.failed} session workflows failed (see the Temporal Web UI)` : '';
  say(`${results.finished}/${results.total} sessions finished${failed}.`);
  say(`Results in ${runDir}: manifest.json, streams/, sessions/<session>/summary.json and transcript.jsonl.`);
  say(`Audit retries and unresolved turns with: npx allocbench audit ${runDir}`);
}

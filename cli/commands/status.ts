import type { Command } from 'commander';
import { runStatus, stateKey, watchRuns, type RunStatus } from '../../client/run-status.js';
import { runsUnder } from '../../run-store/open-run-store.js';
import type { ProviderConcurrency } from '../../run-store/provider-concurrency.js';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { SESSION_STATES } from '../../run-store/session-states.js';
import { table } from '../format.js';
import { numberIn } from '../options.js';

/** The runs named, or every run under ./runs. */
async function runLocations(paths: readonly string[]): Promise<string[]> {
  return paths.length > 0 ? paths.map(resolveRunLocation) : runsUnder('runs');
}

const describeConcurrency = (limits: readonly ProviderConcurrency[]) =>
  limits.map((l) => `${l.provider} ${l.limit}/${l.ceiling} (${l.cuts} cuts${l.workers > 1 ? `, ${l.workers} workers` : ''})`).join('; ') ||
  'not adapted';

function statusTable(runs: readonly RunStatus[]): string {
  if (runs.length === 0) return 'no run directories found (looked in ./runs)';
  const running = runs.some((run) => run.running !== undefined);
  const header = [
    'sweep',
    ...SESSION_STATES.map((state) => (state === 'stopped' ? 'stopped (cap)' : state)),
    ...(running ? ['running'] : []),
    'invalid cells (>10% unresolved)',
    'calls at once (adaptive)',
    'run directory',
  ];
  const body = runs.map((r) => [
    r.name,
    `${r.finished}/${r.total}`,
    ...SESSION_STATES.slice(1).map((state) => String(r[stateKey(state)])),
    ...(running ? [String(r.running ?? 0)] : []),
    r.invalidCells.join('; ') || 'none',
    describeConcurrency(r.concurrency),
    r.runDir,
  ]);
  return table(header, body, [0, header.length - 3, header.length - 2, header.length - 1]);
}

interface StatusFlags {
  json?: boolean;
  watch?: boolean;
  interval: number;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      "progress and validity of run directories (default: every run under ./runs): sessions finished, stopped by a cost cap, cancelled, failed mechanically, in flight (begun, not ended), waiting (not begun) and unreadable, and each provider's adaptive limit on calls at once",
    )
    .argument('[runs...]', 'run directories or s3://bucket/prefix locations')
    .option('--json', 'print one JSON object (with --watch, one a line)')
    .option(
      '--watch',
      'print again every --interval seconds while a session shown is in flight or waiting and a command (or a cluster) runs its run (Ctrl-C stops it sooner)',
    )
    .option('--interval <seconds>', 'with --watch, seconds between prints', numberIn(0.1, 3600), 5)
    .action(async (paths: string[], flags: StatusFlags) => {
      const locations = await runLocations(paths);
      const statuses = flags.watch ? watchRuns(locations, flags.interval * 1000) : once(runStatus(locations));
      let first = true;
      for await (const runs of statuses) {
        if (first)
          for (const line of runs.flatMap((run) => run.unreadableSummaries))
            process.stderr.write(`allocbench: ${line} (counted as unreadable)\n`);
        first = false;
        // eslint-disable-next-line @typescript-eslint/no-unused-vars
        const rows = runs.map(({ unreadableSummaries, ...row }) => row);
        if (flags.json) process.stdout.write(`${JSON.stringify({ runs: rows }, null, flags.watch ? undefined : 2)}\n`);
        else process.stdout.write(`${flags.watch && process.stdout.isTTY ? CLEAR_SCREEN : ''}${statusTable(runs)}\n`);
      }
    });
}

async function* once<T>(value: Promise<T>): AsyncGenerator<T> {
  yield await value;
}

/** Moves a terminal's cursor home and clears it, so each print replaces the last. */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

import type { Command } from 'commander';
import { readManifest } from '../../run-store/manifest.js';
import { openRunStore, runsUnder } from '../../run-store/open-run-store.js';
import { resolveRunLocation } from '../../run-store/run-location.js';
import { providerConcurrency, type ProviderConcurrency } from '../../run-store/provider-concurrency.js';
import { connectClient, targetFromEnv } from '../../infra/temporal-target.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { table } from '../format.js';
import { numberIn } from '../options.js';
import { readRunResults, type RunResults } from '../run-results.js';

/** The runs named, or every run under ./runs. */
async function runLocations(paths: readonly string[]): Promise<string[]> {
  return paths.length > 0 ? paths.map(resolveRunLocation) : runsUnder('runs');
}

const describeConcurrency = (limits: readonly ProviderConcurrency[]) =>
  limits.map((l) => `${l.provider} ${l.limit}/${l.ceiling} (${l.cuts} cuts${l.workers > 1 ? `, ${l.workers} workers` : ''})`).join('; ') ||
  'not adapted';

/**
 * Running session workflows per run directory, when a cluster is configured:
 * the sessions of this run only (their ids carry its experiment hash), not
 * those of another run of the same name.
 */
async function runningSessions(runDirs: readonly string[]): Promise<Map<string, number> | null> {
  const target = targetFromEnv();
  if (!target) return null;
  const prefixes = await Promise.all(
    runDirs.map(async (runDir) => `${sweepWorkflowId((await readManifest(openRunStore(runDir))).config)}/`),
  );
  const { Client } = await import('@temporalio/client');
  const connection = await connectClient(target);
  try {
    const client = new Client({ connection, namespace: target.namespace });
    const counts = await Promise.all(
      prefixes.map((prefix) =>
        client.workflow.count(`WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`).then((c) => c.count),
      ),
    );
    return new Map(runDirs.map((runDir, i) => [runDir, counts[i] ?? 0]));
  } finally {
    await connection.close();
  }
}

/** One row per run: its progress, validity and providers' adaptive limits. */
async function statusRows(paths: readonly string[]) {
  const runs: RunResults[] = await Promise.all((await runLocations(paths)).map((dir) => readRunResults(dir)));
  for (const line of runs.flatMap((run) => run.unreadable)) process.stderr.write(`allocbench: ${line} (counted as not finished)\n`);
  const running = await runningSessions(runs.map((run) => run.runDir));
  const concurrency = await Promise.all(runs.map((run) => providerConcurrency(openRunStore(run.runDir))));
  const rows = runs.map((run, i) => ({
    name: run.name,
    runDir: run.runDir,
    finished: run.finished,
    inFlight: run.started,
    waiting: run.total - run.finished - run.started,
    total: run.total,
    mechanicalFailures: run.mechanicalFailures,
    invalidCells: run.cells.filter((cell) => cell.invalid).map((cell) => `${cell.model} ${cell.rung}`),
    ...(running && { running: running.get(run.runDir) ?? 0 }),
    concurrency: concurrency[i] ?? [],
  }));
  return { rows, running };
}

function statusTable({ rows, running }: Awaited<ReturnType<typeof statusRows>>): string {
  if (rows.length === 0) return 'no run directories found (looked in ./runs)';
  const header = [
    'sweep',
    'finished',
    'in flight',
    'waiting',
    ...(running ? ['running'] : []),
    'mechanical',
    'invalid cells (>10% unresolved)',
    'calls at once (adaptive)',
    'run directory',
  ];
  const body = rows.map((r) => [
    r.name,
    `${r.finished}/${r.total}`,
    String(r.inFlight),
    String(r.waiting),
    ...(running ? [String(r.running ?? 0)] : []),
    String(r.mechanicalFailures),
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
      "progress and validity of run directories (default: every run under ./runs): sessions finished, in flight (begun, not finished) and waiting, and each provider's adaptive limit on calls at once",
    )
    .argument('[runs...]', 'run directories or s3://bucket/prefix locations')
    .option('--json', 'print one JSON object (with --watch, one a line)')
    .option('--watch', 'print again every --interval seconds until every run shown has finished (Ctrl-C stops it sooner)')
    .option('--interval <seconds>', 'with --watch, seconds between prints', numberIn(0.1, 3600), 5)
    .action(async (paths: string[], flags: StatusFlags) => {
      for (;;) {
        const status = await statusRows(paths);
        if (flags.json) process.stdout.write(`${JSON.stringify({ runs: status.rows }, null, flags.watch ? undefined : 2)}\n`);
        else process.stdout.write(`${flags.watch && process.stdout.isTTY ? CLEAR_SCREEN : ''}${statusTable(status)}\n`);
        const done = status.rows.every((row) => row.finished === row.total);
        if (!flags.watch || done) return;
        await sleep(flags.interval * 1000);
      }
    });
}

/** Moves a terminal's cursor home and clears it, so each print replaces the last. */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

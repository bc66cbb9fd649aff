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
import { readRunResults, type RunResults } from '../../analysis/run-results.js';
import { SESSION_STATES, type SessionState } from '../../run-store/session-states.js';

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

/** A state as a JSON key: 'in flight' → inFlight. */
const jsonKey = <S extends SessionState>(state: S) => state.replace(/ (\w)/g, (_, letter: string) => letter.toUpperCase()) as StateKey<S>;
type StateKey<S extends string> = S extends `${infer A} ${infer B}` ? `${A}${Capitalize<B>}` : S;

/** Every state's count under its JSON key. */
const statesJson = (states: Readonly<Record<SessionState, number>>) =>
  Object.fromEntries(SESSION_STATES.map((state) => [jsonKey(state), states[state]])) as { [S in SessionState as StateKey<S>]: number };

/** One row per run: its progress, validity and providers' adaptive limits. */
async function statusRows(paths: readonly string[]) {
  const runs: RunResults[] = await Promise.all((await runLocations(paths)).map((dir) => readRunResults(dir)));
  for (const line of runs.flatMap((run) => run.unreadable)) process.stderr.write(`allocbench: ${line} (counted as unreadable)\n`);
  const running = await runningSessions(runs.map((run) => run.runDir));
  const concurrency = await Promise.all(runs.map((run) => providerConcurrency(openRunStore(run.runDir))));
  const holders = await Promise.all(runs.map((run) => openRunStore(run.runDir).lockHolder()));
  const rows = runs.map((run, i) => ({
    name: run.name,
    runDir: run.runDir,
    total: run.total,
    ...statesJson(run.states),
    invalidCells: run.cells.filter((cell) => cell.invalid).map((cell) => `${cell.model} ${cell.rung}`),
    ...(running && { running: running.get(run.runDir) ?? 0 }),
    /** The command running the run, if one is (it holds the run's lock). */
    runBy: holders[i] ?? null,
    concurrency: concurrency[i] ?? [],
  }));
  return { rows, running };
}

function statusTable({ rows, running }: Awaited<ReturnType<typeof statusRows>>): string {
  if (rows.length === 0) return 'no run directories found (looked in ./runs)';
  const header = [
    'sweep',
    ...SESSION_STATES.map((state) => (state === 'stopped' ? 'stopped (cap)' : state)),
    ...(running ? ['running'] : []),
    'invalid cells (>10% unresolved)',
    'calls at once (adaptive)',
    'run directory',
  ];
  const body = rows.map((r) => [
    r.name,
    `${r.finished}/${r.total}`,
    ...SESSION_STATES.slice(1).map((state) => String(r[jsonKey(state)])),
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
      for (;;) {
        const status = await statusRows(paths);
        if (flags.json) process.stdout.write(`${JSON.stringify({ runs: status.rows }, null, flags.watch ? undefined : 2)}\n`);
        else process.stdout.write(`${flags.watch && process.stdout.isTTY ? CLEAR_SCREEN : ''}${statusTable(status)}\n`);
        // Watching ends when nothing moves any more: in no run shown is a session in flight or waiting while a command or a
        // cluster runs it (a cancelled or killed run leaves its sessions where they were).
        const moving = status.rows.some(
          (row) => row.inFlight + row.waiting > 0 && (row.runBy !== null || (row.running !== undefined && row.running > 0)),
        );
        if (!flags.watch || !moving) return;
        await sleep(flags.interval * 1000);
      }
    });
}

/** Moves a terminal's cursor home and clears it, so each print replaces the last. */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

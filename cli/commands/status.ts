import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { readManifest } from '../../activities/run-store/manifest.js';
import { connectClient, targetFromEnv } from '../../infra/temporal-target.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { printJson, table } from '../format.js';
import { readRunResults, type RunResults } from '../run-results.js';

function runDirectories(paths: readonly string[]): string[] {
  if (paths.length > 0) return paths.map((path) => resolve(path));
  const root = resolve('runs');
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'manifest.json')))
    .map((entry) => join(root, entry.name));
}

/**
 * Running session workflows per run directory, when a cluster is configured:
 * the sessions of this run only (their ids carry its experiment hash), not
 * those of another run of the same name.
 */
async function runningSessions(runDirs: readonly string[]): Promise<Map<string, number> | null> {
  const target = targetFromEnv();
  if (!target) return null;
  const prefixes = await Promise.all(runDirs.map(async (runDir) => `${sweepWorkflowId((await readManifest(runDir)).config)}/`));
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

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'progress and validity of run directories (default: every run under ./runs): sessions finished, in flight (begun, not finished) and waiting',
    )
    .argument('[runs...]', 'run directories')
    .option('--json', 'print one JSON object')
    .action(async (paths: string[], flags: { json?: boolean }) => {
      const runs: RunResults[] = await Promise.all(runDirectories(paths).map((dir) => readRunResults(dir)));
      const running = await runningSessions(runs.map((run) => run.runDir));
      const rows = runs.map((run) => ({
        name: run.name,
        runDir: run.runDir,
        finished: run.finished,
        inFlight: run.started,
        waiting: run.total - run.finished - run.started,
        total: run.total,
        mechanicalFailures: run.mechanicalFailures,
        invalidCells: run.cells.filter((cell) => cell.invalid).map((cell) => `${cell.model} ${cell.rung}`),
        ...(running && { running: running.get(run.runDir) ?? 0 }),
      }));
      if (flags.json) return printJson({ runs: rows });
      if (rows.length === 0) return void process.stdout.write('no run directories found (looked in ./runs)\n');
      const header = [
        'sweep',
        'finished',
        'in flight',
        'waiting',
        ...(running ? ['running'] : []),
        'mechanical',
        'invalid cells (>10% unresolved)',
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
        r.runDir,
      ]);
      process.stdout.write(`${table(header, body, [0, header.length - 2, header.length - 1])}\n`);
    });
}

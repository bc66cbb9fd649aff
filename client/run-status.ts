import { setTimeout as sleep } from 'node:timers/promises';
import { readRunResults } from '../analysis/run-results.js';
import { connectClient, targetFromEnv } from '../infra/temporal-target.js';
import { readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { providerConcurrency, type ProviderConcurrency } from '../run-store/provider-concurrency.js';
import { SESSION_STATES, type SessionState } from '../run-store/session-states.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';

/** A state as a JSON key: 'in flight' → inFlight. */
type StateKey<S extends string> = S extends `${infer A} ${infer B}` ? `${A}${Capitalize<B>}` : S;
export const stateKey = <S extends SessionState>(state: S) =>
  state.replace(/ (\w)/g, (_, letter: string) => letter.toUpperCase()) as StateKey<S>;

/** Where one run stands: its sessions in each state (by their JSON keys), its invalid cells, what runs it, its providers' limits. */
export type RunStatus = {
  readonly name: string;
  readonly runDir: string;
  readonly total: number;
  /** Cells over 10% unresolved, each `<model> <rung>`. */
  readonly invalidCells: readonly string[];
  /** Session workflows running on the cluster TEMPORAL_ADDRESS names, when one is set. */
  readonly running?: number;
  /** The command running the run (it holds the run's lock), in a few words; null when none is. */
  readonly runBy: string | null;
  readonly concurrency: readonly ProviderConcurrency[];
  /** Summaries that cannot be read, one line each naming the file. */
  readonly unreadableSummaries: readonly string[];
} & { readonly [S in SessionState as StateKey<S>]: number };

/**
 * Session workflows running on the cluster per run, when one is configured:
 * the sessions of that run only (their ids carry its experiment hash), not
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

/** Where each run stands now, read from its run store (and the cluster's running sessions, where one is configured). */
export async function runStatus(runDirs: readonly string[]): Promise<RunStatus[]> {
  const runs = await Promise.all(runDirs.map((dir) => readRunResults(dir)));
  const running = await runningSessions(runs.map((run) => run.runDir));
  return Promise.all(
    runs.map(async (run) => {
      const store = openRunStore(run.runDir);
      const runningHere = running?.get(run.runDir);
      return {
        name: run.name,
        runDir: run.runDir,
        total: run.total,
        ...(Object.fromEntries(SESSION_STATES.map((state) => [stateKey(state), run.states[state]])) as {
          [S in SessionState as StateKey<S>]: number;
        }),
        invalidCells: run.cells.filter((cell) => cell.invalid).map((cell) => `${cell.model} ${cell.rung}`),
        ...(running && { running: runningHere ?? 0 }),
        runBy: (await store.lockHolder()) ?? null,
        concurrency: await providerConcurrency(store),
        unreadableSummaries: run.unreadable,
      };
    }),
  );
}

/** Whether a run is still moving: a session in flight or waiting while a command (or the cluster) runs it. */
export const isMoving = (run: RunStatus): boolean =>
  run.inFlight + run.waiting > 0 && (run.runBy !== null || (run.running !== undefined && run.running > 0));

/**
 * The runs' status now, and again every `intervalMs` while any of them is
 * moving; it ends when none is (a finished run, a cancelled one, one whose
 * command was killed).
 */
export async function* watchRuns(runDirs: readonly string[], intervalMs: number): AsyncGenerator<RunStatus[]> {
  for (;;) {
    const status = await runStatus(runDirs);
    yield status;
    if (!status.some(isMoving)) return;
    await sleep(intervalMs);
  }
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { runSession } from '../../core/session/run-session.js';
import type { DecisionRecord } from '../../core/session/session-record.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import type { SweepConfig } from '../../core/sweep/sweep-config.js';
import { parsePolicyAgent } from '../../activities/providers/policy-provider.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { runSweep } from '../../cli/sweep-runner.js';
import { startDevServer, type DevServer } from '../../infra/dev-server.js';
import { freePort } from '../../infra/ports.js';
import { workflowsPath } from '../../workers/create-workers.js';

/** A real Temporal dev server on free ports, with its SQLite file in a fresh temp directory. */
export async function startTestServer(dynamicConfig?: Record<string, number>): Promise<{ server: DevServer; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-temporal-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const server = await startDevServer({
    dbFile: join(dir, 'temporal', 'dev.sqlite'),
    port,
    uiPort,
    ...(dynamicConfig && { dynamicConfig }),
  });
  return { server, dir };
}

/** One server for a whole test file: started before its tests, stopped after them. */
export function serverForThisFile(dynamicConfig?: Record<string, number>): { readonly server: DevServer; readonly dir: string } {
  let started: { server: DevServer; dir: string } | undefined;
  beforeAll(async () => {
    started = await startTestServer(dynamicConfig);
  });
  afterAll(async () => {
    await started?.server.stop();
  });
  const get = () => {
    if (!started) throw new Error('the test server has not started');
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get dir() {
      return get().dir;
    },
  };
}

/** Runs a sweep through the real server (TEMPORAL_ADDRESS) with workers in this process, as the CLI does. */
export async function sweepOn(server: DevServer, config: SweepConfig, runDir: string) {
  process.env.TEMPORAL_ADDRESS = server.address;
  return runSweep(config, { runDir, temporalPort: 0, inProcessWorkers: true, progressBar: false, say: () => undefined });
}

/** The decisions the core's in-process engine makes for a policy-agent session. */
export function inProcessDecisions(spec: SessionSpec): DecisionRecord[] {
  const stream = generateStream(spec.seed, spec.stream);
  const classes = stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
  const policy = parsePolicyAgent(spec.model.slice('policy/'.length)).policy;
  return [...runSession(classes, { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length }, policy).decisions];
}

/** A session's decisions without how each reply was read, to compare with the in-process engine's, which reads none. */
export function decisionsOf(summary: SessionSummary): DecisionRecord[] {
  return summary.decisions.map(
    (decision) => Object.fromEntries(Object.entries(decision).filter(([key]) => key !== 'how')) as unknown as DecisionRecord,
  );
}

/** The decision turns of a session's stream, under a policy that never commits (so every unheld item is one). */
export function decisionTurns(spec: SessionSpec): number[] {
  return inProcessDecisions({ ...spec, model: 'policy/commit-at-99' }).map((d) => d.t);
}

export async function summaryOf(runDir: string, spec: SessionSpec): Promise<SessionSummary> {
  const summary = await openRunStore(runDir).readSummary(spec);
  if (!summary) throw new Error(`no summary for ${spec.model} seed ${spec.seed}`);
  return summary;
}

/** A session's transcript, on disk or on S3. */
export const transcriptOf = (runDir: string, spec: SessionSpec) => openRunStore(runDir).readTranscript(spec);

/** Replays every recorded history the visibility query finds with today's workflow code; expects none to fail and returns how many replayed. */
export async function replayRecordedHistories(server: DevServer, query: string): Promise<number> {
  const connection = await Connection.connect({ address: server.address });
  try {
    const histories = new Client({ connection }).workflow.list({ query }).intoHistories();
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowsPath: workflowsPath() }, histories)) {
      expect(result.error, result.workflowId).toBeUndefined();
      replayed++;
    }
    return replayed;
  } finally {
    await connection.close();
  }
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { runSession } from '../../core/session/run-session.js';
import type { DecisionRecord } from '../../core/session/session-record.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import type { SessionSpec } from '../../core/sweep/session-spec.js';
import type { SweepConfig } from '../../core/sweep/sweep-config.js';
import { parsePolicyAgent } from '../../activities/providers/policy-provider.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import { runOnTemporal } from '../../client/sweep-on-temporal.js';
import type { DevServer } from '../../infra/dev-server.js';
import { workflowCode } from '../../workers/create-workers.js';
import { createNamespace, startTestServer } from './test-servers.js';

/** A test file's Temporal: its server (address and namespace), a temp directory for its runs, and the environment a CLI process needs to reach it. */
export interface TestTemporal {
  readonly server: DevServer;
  readonly dir: string;
  /** TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, for the CLI processes a test starts. */
  readonly env: Record<string, string>;
}

function forThisFile(start: () => Promise<{ server: DevServer; dir: string }>): TestTemporal {
  let started: { server: DevServer; dir: string } | undefined;
  beforeAll(async () => {
    started = await start();
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
    get env() {
      return { TEMPORAL_ADDRESS: get().server.address, TEMPORAL_NAMESPACE: get().server.namespace };
    },
  };
}

/**
 * The test file's Temporal: a namespace of its own on the dev server its vitest
 * worker shares with the other files it runs (started by test/setup/temporal-servers.ts).
 * Every Temporal test gets its server here, unless it stops or restarts the
 * server, kills workers, or needs server settings of its own: then
 * ownServerForThisFile.
 */
export function serverForThisFile(): TestTemporal {
  return forThisFile(async () => {
    const servers = inject('temporalServers');
    const address = servers[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % servers.length];
    if (!address) throw new Error('no shared Temporal server: vitest.config.ts runs test/setup/before-suite.ts first');
    const file = basename(expect.getState().testPath ?? 'test', '.test.ts');
    const namespace = `${file}-${process.pid}`;
    await createNamespace(address, namespace);
    const server: DevServer = { address, namespace, uiUrl: '', stop: async () => undefined, kill: async () => undefined };
    return { server, dir: mkdtempSync(join(tmpdir(), `allocbench-${file}-`)) };
  });
}

/** A Temporal dev server of the test file's own (its default namespace), started before its tests and stopped after them. */
export function ownServerForThisFile(dynamicConfig?: Record<string, number>): TestTemporal {
  return forThisFile(() => startTestServer(dynamicConfig));
}

/** Runs a sweep through the real server (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE) with workers in this process, as the CLI does. */
export async function sweepOn(server: DevServer, config: SweepConfig, runDir: string) {
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = server.namespace;
  return runOnTemporal(config, { runDir, temporalPort: 0, inProcessWorkers: true, onProgress: undefined, say: () => undefined });
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
    const histories = new Client({ connection, namespace: server.namespace }).workflow.list({ query }).intoHistories();
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(workflowCode(), histories)) {
      expect(result.error, result.workflowId).toBeUndefined();
      replayed++;
    }
    return replayed;
  } finally {
    await connection.close();
  }
}

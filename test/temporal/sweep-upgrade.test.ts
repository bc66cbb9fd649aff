import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { createModelActivities } from '../../activities/model-activities.js';
import { ProviderRegistry } from '../../activities/providers/registry.js';
import { createStoreActivities } from '../../activities/store-activities.js';
import { claimRunDirectory } from '../../run-store/manifest.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { runVersions } from '../../infra/run-versions.js';
import { SESSIONS_TASK_QUEUE } from '../../protocol/task-queues.js';
import { workflowsPath } from '../../workers/create-workers.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import {
  decisionsOf,
  inProcessDecisions,
  replayRecordedHistories,
  serverForThisFile,
  summaryOf,
  sweepOn,
  transcriptOf,
} from './harness.js';
import { until } from './processes.js';

/*
 * Sweeps begun by a version of the tool that ran sessions as the sweep's
 * children: a history recorded from that version (test/fixtures/children-sweep-history.bin, the
 * binary protobuf of a 3-session sweep at window 2, from the commit before top-level sessions) replays with today's code,
 * and a sweep begun that way (a worker running that version's workflows) is
 * taken over mid-way by today's worker and runs every session to its end, as
 * children still.
 */

const server = serverForThisFile();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

describe('a sweep begun with sessions as its children', () => {
  it('replays from a history recorded by that version', async () => {
    const history = proto.temporal.api.history.v1.History.decode(readFileSync(fixture('children-sweep-history.bin')));
    expect(history.events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes).length).toBe(3);
    // The sweep's id is not in its history; its input, the sweep as it ran, gives it.
    const [input] = history.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    const { config } = defaultPayloadConverter.fromPayload<{ config: unknown }>(input as Payload);
    await Worker.runReplayHistory({ workflowsPath: workflowsPath() }, history, sweepWorkflowId(parseSweepConfig(config)));
  });

  it('is taken over mid-way by a worker of this version and finishes every session', async () => {
    const config = parseSweepConfig({
      name: 'upgraded',
      models: ['policy/commit-at-2?delay=100'],
      rungs: ['R1'],
      seeds: '2000-2003',
      stream: { length: 8 },
      window: 2,
    });
    const runDir = join(server.dir, 'upgraded');
    await claimRunDirectory(openRunStore(runDir), config, runVersions());
    const specs = expandSweep(config);

    // The older version's worker begins the sweep and its first sessions, and stops.
    const nativeConnection = await NativeConnection.connect({ address: server.server.address });
    const connection = await Connection.connect({ address: server.server.address });
    try {
      const older = await Worker.create({
        connection: nativeConnection,
        namespace: server.server.namespace,
        taskQueue: SESSIONS_TASK_QUEUE,
        workflowsPath: fileURLToPath(new URL('./fixtures/children-sweep-workflows.ts', import.meta.url)),
        activities: { ...createStoreActivities(), ...createModelActivities(new ProviderRegistry()) },
      });
      const client = new Client({ connection, namespace: server.server.namespace });
      await older.runUntil(async () => {
        await client.workflow.start('sweepWorkflow', {
          workflowId: sweepWorkflowId(config),
          taskQueue: SESSIONS_TASK_QUEUE,
          args: [{ runDir, sweepId: config.name, config }],
        });
        await until(async () => (await transcriptOf(runDir, specs[0]!)).turns.length >= 2, 120_000, 'the first session under way');
      });
    } finally {
      await nativeConnection.close();
    }

    // This version attaches to the running sweep and runs it on.
    try {
      const progress = await sweepOn(server.server, config, runDir);
      expect(progress).toMatchObject({ total: specs.length, finished: specs.length, failed: 0 });
      for (const spec of specs) expect(decisionsOf(await summaryOf(runDir, spec)), sessionKey(spec)).toEqual(inProcessDecisions(spec));
      const history = await new Client({ connection, namespace: server.server.namespace }).workflow
        .getHandle(sweepWorkflowId(config))
        .fetchHistory();
      const started = history.events?.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes).length;
      expect(started, 'every session a child, as the sweep began').toBe(specs.length);
    } finally {
      await connection.close();
    }
    expect(await replayRecordedHistories(server.server, `WorkflowId = "${sweepWorkflowId(config)}"`)).toBe(1);
  });
});

import { statSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { runLayout } from '../../run-store/run-layout.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { startLoopback } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { decisionTurns, ownServerForThisFile, summaryOf, sweepOn } from './harness.js';

/** The server rejects any payload above this many bytes (the default limit is 2 MB). */
const BLOB_LIMIT = 8 * 1024;

const temporal = ownServerForThisFile({
  'limit.blobSize.error': BLOB_LIMIT,
  'limit.blobSize.warn': BLOB_LIMIT / 2,
  // Suggest continue-as-new after a few hundred events, so the long session below has to.
  'limit.historyCount.suggestContinueAsNew': 400,
});

/** A model that never commits, behind the OpenAI wire format. */
let loopback: Awaited<ReturnType<typeof startLoopback>>;
beforeAll(async () => {
  loopback = await startLoopback((request) =>
    request.path.endsWith('/models')
      ? { json: { object: 'list', data: [{ id: 'skipper', object: 'model' }] } }
      : { json: chatCompletion({ tool_calls: [functionCall('call_1', 'skip_solver', '{}')] }, {}, 'skipper') },
  );
});
afterAll(async () => loopback?.close());

describe('claim check and continue-as-new', () => {
  // In-session, calls that answer at once all run within a few workflow tasks, so history is checked (and the
  // session continued as new) only that often; on a provider queue every call is a workflow task of its own.
  it.each(['in-session', 'provider-queue'] as const)(
    'keep every payload small on a server with a tiny blob limit, however large the transcript grows (calls %s)',
    async (modelCalls) => {
      // A long R2 stream where the agent never commits: every item is a decision turn with a problem and its inputs.
      const config = parseSweepConfig({
        name: `long-${modelCalls}`,
        modelCalls,
        models: [`openai-compatible/skipper@${loopback.url}/v1`],
        rungs: ['R2'],
        seeds: [2000],
        stream: { length: 300 },
        tokenCap: 1_000_000_000,
      });
      const [spec] = expandSweep(config);
      if (!spec) throw new Error('empty sweep');
      const runDir = join(temporal.dir, `long-${modelCalls}`);
      const progress = await sweepOn(temporal.server, config, runDir);
      expect(progress).toMatchObject({ finished: 1, failed: 0 });
      const summary = await summaryOf(runDir, spec);
      expect(summary.decisions.map((d) => d.t)).toEqual(decisionTurns(spec));
      expect(summary.decisions.every((d) => d.action === 'pass' && d.resolved)).toBe(true);
      expect(summary.decisions).toHaveLength(300);
      expect(statSync(runLayout.transcript(runDir, spec)).size).toBeGreaterThan(20 * BLOB_LIMIT);
      const connection = await Connection.connect({ address: temporal.server.address });
      try {
        const runs = await new Client({ connection, namespace: temporal.server.namespace }).workflow.count(
          `WorkflowId = "${sweepWorkflowId(config)}/${sessionKey(spec)}"`,
        );
        if (modelCalls === 'provider-queue') expect(runs.count).toBeGreaterThan(1);
      } finally {
        await connection.close();
      }
    },
    240_000,
  );
});

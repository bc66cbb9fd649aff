import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { systemPrompt } from '../../core/rungs/system-prompt.js';
import { framingOf, sessionKey } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { runLayout } from '../../run-store/run-layout.js';
import { readRunResults } from '../../analysis/run-results.js';
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

const temporal = serverForThisFile();

const ladder = parseSweepConfig({
  name: 'ladder',
  models: ['policy/eager', 'policy/commit-at-2', 'policy/bayes'],
  rungs: ['R0', 'probe', 'R1', 'R2'],
  reskins: ['ball', 'quiver'],
  charges: [0, 10],
  announceN: [true],
  seeds: [2000, 2001, 2002],
  window: 24,
});

describe('sessions on a real Temporal server', () => {
  it('play every rung, reskin and charge exactly as the core does in process', async () => {
    const runDir = join(temporal.dir, 'ladder');
    const progress = await sweepOn(temporal.server, ladder, runDir);
    const specs = expandSweep(ladder);
    expect(progress).toMatchObject({ total: specs.length, finished: specs.length, failed: 0, mechanicalFailures: 0 });
    for (const spec of specs) {
      const summary = await summaryOf(runDir, spec);
      const expected = inProcessDecisions(spec);
      // The same decisions; the session also records how each reply was read.
      expect(decisionsOf(summary), sessionKey(spec)).toEqual(expected);
      expect(new Set(summary.decisions.map((d) => d.how))).toEqual(new Set([spec.rung === 'R0' ? 'tag' : 'tool']));
      const classes = generateStream(spec.seed, spec.stream).items.map((item) => FAMILY_NAMES.indexOf(item.family));
      expect(summary.metrics).toEqual(
        sessionMetrics({ classes, rules: { budget: spec.budget, charge: spec.charge }, decisions: expected }),
      );
      expect(summary).toMatchObject({ termination: 'stream-end', responseModels: [spec.model] });
      const transcript = await transcriptOf(runDir, spec);
      expect(transcript.start?.system).toBe(systemPrompt(framingOf(spec)));
      expect(transcript.turns.map((turn) => turn.t)).toEqual(expected.map((d) => d.t));
    }
    const results = await readRunResults(runDir);
    expect(results.cells.every((cell) => !cell.invalid && cell.finished === cell.sessions)).toBe(true);
  });

  it('keep each session history small (claim check) and findable by typed search attributes', async () => {
    const connection = await Connection.connect({ address: temporal.server.address });
    try {
      const client = new Client({ connection, namespace: temporal.server.namespace });
      const found = [];
      for await (const execution of client.workflow.list({
        query: 'SweepId = "ladder" AND Rung = "R1" AND Seed = 2001 AND Model = "policy/bayes"',
      })) {
        found.push(execution.workflowId);
      }
      expect(found).toHaveLength(2); // K = 0 and K = 10
      const [first] = expandSweep(ladder);
      if (!first) throw new Error('empty sweep');
      const history = await client.workflow.getHandle(`${sweepWorkflowId(ladder)}/${sessionKey(first)}`).fetchHistory();
      const bytes = JSON.stringify(history).length;
      const transcriptBytes = statSync(runLayout.transcript(join(temporal.dir, 'ladder'), first)).size;
      expect(bytes).toBeLessThan(200_000);
      expect(history.events?.length).toBeLessThan(200);
      expect(transcriptBytes).toBeGreaterThan(1000);
    } finally {
      await connection.close();
    }
  });

  it('replay deterministically from their recorded histories', async () => {
    const replayed = await replayRecordedHistories(temporal.server, 'WorkflowType = "sessionWorkflow" OR WorkflowType = "sweepWorkflow"');
    expect(replayed).toBeGreaterThan(expandSweep(ladder).length);
  });

  it('skip finished sessions when a sweep is run again, and refuse a changed sweep under the same name', async () => {
    const runDir = join(temporal.dir, 'ladder');
    const sizes = () => expandSweep(ladder).map((spec) => statSync(runLayout.transcript(runDir, spec)).size);
    const before = sizes();
    const again = await sweepOn(temporal.server, ladder, runDir);
    expect(again.finished).toBe(again.total);
    expect(sizes()).toEqual(before);
    const changed = parseSweepConfig({ ...ladder, seeds: [2000, 2001] });
    await expect(sweepOn(temporal.server, changed, runDir)).rejects.toThrow(/already holds sweep 'ladder' with different settings/);
  });
});

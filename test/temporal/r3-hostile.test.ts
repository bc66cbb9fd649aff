import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOfInputs } from '../../core/families/registry.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { wallGuardMs } from '../../core/scripts/script-settings.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import type { ExecutionRecord } from '../../run-store/transcript.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { HOSTILE_SCRIPTS } from '../sandbox/hostile-scripts.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { loopPosition, loopReply } from './loop-model.js';

const temporal = serverForThisFile();

/**
 * A local OpenAI-compatible "model" that plays R3's agent loop through the
 * real SDK, Temporal and the sandbox worker process: on problem t it writes
 * the t-th hostile script, runs it on the problem's inputs and submits what it
 * returned; on the last problem it does the same with the correct script.
 */
function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'coder', object: 'model' }] } };
  const { t, inputs } = loopPosition(request);
  const family = familyOfInputs(inputs);
  const code = HOSTILE_SCRIPTS[t - 1]?.code ?? (family ? REFERENCE_SCRIPTS[family.name] : 'function solve() { return 0; }');
  return loopReply(request, 'coder', code, '0');
}

let loopback: Awaited<ReturnType<typeof startLoopback>>;
beforeAll(async () => {
  loopback = await startLoopback(reply);
});
afterAll(async () => loopback?.close());

describe('hostile R3 scripts through the sandbox worker process', () => {
  it('each get a recorded outcome within the limits, and the worker survives them all', async () => {
    const turns = HOSTILE_SCRIPTS.length + 1;
    const config = parseSweepConfig({
      name: 'hostile',
      models: [`openai-compatible/coder@${loopback.url}/v1`],
      rungs: ['R3'],
      seeds: [2000],
      budgets: [turns],
      stream: { length: turns },
      r3: { end: 'stream-end', timeoutMs: 500, memoryMb: 32 },
    });
    const runDir = join(temporal.dir, 'hostile');
    const started = Date.now();
    await sweepOn(temporal.server, config, runDir);
    const [spec] = expandSweep(config);
    const transcript = await transcriptOf(runDir, spec!);
    // One run per problem: problem t's run is of the script written on it.
    const runOn = (t: number): ExecutionRecord | undefined => [...transcript.executions.values()].find((run) => run.t === t);
    expect(transcript.executions.size).toBe(turns);
    HOSTILE_SCRIPTS.forEach((script, index) => {
      const execution = runOn(index + 1);
      const outcome = execution?.outcome;
      expect(outcome && (outcome.ok ? 'ok' : outcome.kind), script.name).toBe(script.expected);
      expect(execution?.correct, script.name).toBe(false);
      // A recorded outcome, within the limits: the wall-clock guard at the latest, and slack for a loaded machine.
      expect(execution?.outcome.ms ?? Infinity, script.name).toBeLessThan(wallGuardMs(500) + 2500);
      // What else it must be, as in the sandbox's own test: for a timeout, the limit that stopped it.
      if (outcome && (outcome.ok || outcome.kind !== 'worker-lost')) expect(script.check?.(outcome) ?? true, script.name).toBe(true);
    });
    expect(transcript.records.filter((r) => r.type === 'execution-start')).toHaveLength(turns);
    expect(runOn(turns)).toMatchObject({ correct: true, outcome: { ok: true } });
    // Credit only by submission: the last problem's, of what its correct script returned.
    expect(transcript.steps.filter((step) => step.submitted?.correct).map((step) => step.t)).toEqual([turns]);
    const summary = await summaryOf(runDir, spec!);
    expect(summary.termination).toBe('stream-end');
    expect(summary.script?.metrics).toMatchObject({
      builds: turns,
      scriptRuns: turns,
      scriptCorrect: 1,
      answeredCorrectly: 1,
      modelCalls: 3 * turns,
    });
    expect(Date.now() - started).toBeLessThan(120_000);
  });
});

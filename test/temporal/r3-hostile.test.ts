import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOfInputs } from '../../core/families/registry.js';
import { expandSweep, parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { HOSTILE_SCRIPTS } from '../sandbox/hostile-scripts.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/**
 * A local OpenAI-compatible "model" that writes the hostile corpus, one
 * script per turn, then the correct script for the last problem: R3 through
 * the real SDK, Temporal and the sandbox worker process.
 */
function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'coder', object: 'model' }] } };
  const messages = (request.body?.messages ?? []) as { role: string; content: string }[];
  const users = messages.filter((m) => m.role === 'user');
  const turn = users.length;
  const hostile = HOSTILE_SCRIPTS[turn - 1];
  let code = hostile?.code;
  if (!code) {
    const inputs = JSON.parse(/Inputs, as solve\(inputs\) receives them: (.*)/.exec(users.at(-1)?.content ?? '')?.[1] ?? '{}') as Record<
      string,
      unknown
    >;
    const family = familyOfInputs(inputs);
    code = family ? REFERENCE_SCRIPTS[family.name] : 'function solve() { return 0; }';
  }
  return { json: chatCompletion({ tool_calls: [functionCall(`call_${turn}`, 'write_script', JSON.stringify({ code }))] }, {}, 'coder') };
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
    HOSTILE_SCRIPTS.forEach((script, index) => {
      const execution = transcript.executions.get(index + 1);
      const outcome = execution?.outcome;
      expect(outcome && (outcome.ok ? 'ok' : outcome.kind), script.name).toBe(script.expected);
      expect(execution?.correct, script.name).toBe(false);
      // A recorded outcome, within the limits (the wall clock includes isolate replacement).
      expect(execution?.outcome.ms ?? Infinity, script.name).toBeLessThan(3000);
    });
    expect(transcript.records.filter((r) => r.type === 'execution-start')).toHaveLength(turns);
    expect(transcript.executions.get(turns)).toMatchObject({ correct: true, outcome: { ok: true } });
    const summary = await summaryOf(runDir, spec!);
    expect(summary.termination).toBe('stream-end');
    expect(summary.script?.metrics).toMatchObject({ builds: turns, scriptRuns: turns, scriptCorrect: 1 });
    expect(Date.now() - started).toBeLessThan(120_000);
  });
});

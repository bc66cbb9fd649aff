import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { anthropicMessage, chatCompletion } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { join } from 'node:path';

/*
 * Replies read as the paper's harness read them (issue 13), end to end: the
 * real SDK clients against loopback servers in the providers' wire formats,
 * sessions through Temporal, decisions read from the recorded transcripts.
 * Each server answers the n-th decision turn from a script.
 */

const temporal = serverForThisFile();
const HAIKU = 'anthropic/claude-haiku-4-5-20251001';
const LOCAL = 'openai-compatible/qwen@';

const text = (t: string, stop = 'end_turn') => ({ json: anthropicMessage([{ type: 'text', text: t }], {}, stop) });
const toolUse = (...names: string[]) => ({
  json: anthropicMessage(
    names.map((name, i) => ({ type: 'tool_use', id: `toolu_${i}`, name, input: {} })),
    {},
    'tool_use',
  ),
});

/** R0 replies: two DECISION lines (the last wins), a leading PASS., a stray KEEP; then passes. */
const urnScript = [
  text('Green again.\nDECISION: KEEP\nOn reflection, too early.\nDECISION: PASS'),
  text('PASS.\n\nIt is the first blue.'),
  text('Red has come before, so I KEEP it now.'),
];
/** R1 replies: two decisive calls (the first applies), an unknown tool beside a valid one, a reply cut off by the output limit. */
const claimScript = [
  toolUse('claim_solver', 'skip_solver'),
  toolUse('solve_it', 'skip_solver'),
  text('Let me think this through at length', 'max_tokens'),
];

let anthropic: Awaited<ReturnType<typeof startLoopback>>;
let local: Awaited<ReturnType<typeof startLoopback>>;
let script: typeof urnScript = [];
/** What the model says once its script runs out: pass, in the rung's own channel. */
let fallback = text('DECISION: PASS');

beforeAll(async () => {
  anthropic = await startLoopback((_request: RecordedRequest, index: number) => script[index] ?? fallback);
  local = await startLoopback((request: RecordedRequest) => {
    if (request.path.endsWith('/models'))
      return { json: { object: 'list', data: [{ id: 'qwen', object: 'model', created: 0, owned_by: 'me' }] } };
    // A local model that writes its call out as a <tool_call> block: claim the first problem, skip the rest.
    const first = ((request.body?.messages as unknown[]) ?? []).length <= 2;
    const call = `<tool_call>\n{"name": "${first ? 'claim_solver' : 'skip_solver'}", "arguments": {}}\n</tool_call>`;
    return { json: chatCompletion({ content: call }, {}, 'qwen') };
  });
  process.env.ANTHROPIC_API_KEY = 'sk-ant-reading-test';
  process.env.ANTHROPIC_BASE_URL = anthropic.url;
});
afterAll(async () => {
  await anthropic?.close();
  await local?.close();
});

async function playOne(name: string, model: string, rung: 'R0' | 'R1') {
  const config = parseSweepConfig({ name, models: [model], rungs: [rung], seeds: [2000], announceN: [true] });
  const runDir = join(temporal.dir, name);
  await sweepOn(temporal.server, config, runDir);
  const [spec] = expandSweep(config);
  if (!spec) throw new Error('empty sweep');
  const turns = (await transcriptOf(runDir, spec)).turns;
  return {
    summary: await summaryOf(runDir, spec),
    turns,
    attempts: (await transcriptOf(runDir, spec)).records.filter((r) => r.type === 'attempt'),
  };
}

describe('replies read as the paper’s harness read them, through Temporal', () => {
  it('R0: the last DECISION line wins, else a leading KEEP/PASS, else any KEEP/PASS token; the rule is recorded', async () => {
    anthropic.requests.length = 0;
    script = urnScript;
    fallback = text('DECISION: PASS');
    const { turns, summary } = await playOne('reading-r0', HAIKU, 'R0');
    expect(turns.slice(0, 3).map((turn) => [turn.decision.action, turn.decision.how])).toEqual([
      ['pass', 'tag'],
      ['pass', 'lead'],
      ['commit', 'scan'],
    ]);
    expect(summary.metrics.unresolved).toBe(0);
  });

  it('tool rungs: the first of two decisive calls applies (counted unparsed), an unknown tool beside a valid call is ignored, a cut-off reply is its own kind of unresolved', async () => {
    anthropic.requests.length = 0;
    script = claimScript;
    fallback = toolUse('skip_solver');
    const { turns, summary, attempts } = await playOne('reading-r1', HAIKU, 'R1');
    expect(turns[0]?.decision).toMatchObject({ action: 'commit', resolved: true, failure: 'several-decisions' });
    expect(turns[1]?.decision).toMatchObject({ action: 'pass', resolved: true, how: 'tool' });
    expect(turns[1]?.decision.failure).toBeUndefined();
    expect(turns[2]?.decision).toMatchObject({ action: 'pass', resolved: false, failure: 'cut-off' });
    expect(attempts.find((a) => a.t === turns[2]?.t)?.stopReason).toBe('length');
    expect(summary.metrics.unresolved).toBe(2);
    expect(summary.metrics.commitments).toBe(1);
  });

  it('a local model: its call written out in a <tool_call> block is read as the call, at temperature 0 with a required tool call', async () => {
    const { turns, summary } = await playOne('reading-local', `${LOCAL}${local.url}/v1`, 'R1');
    expect(turns[0]?.decision).toMatchObject({ action: 'commit', resolved: true, how: 'tool' });
    expect(summary.metrics.unresolved).toBe(0);
    const chat = local.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chat.length).toBeGreaterThan(0);
    for (const request of chat) expect(request.body).toMatchObject({ temperature: 0, tool_choice: 'required' });
  });
});

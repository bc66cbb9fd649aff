import { describe, expect, it } from 'vitest';
import type { ModelReply, ToolCall } from '../../../core/chat/messages.js';
import { recoverToolCalls } from '../../../core/chat/recover-tool-calls.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { toolSpecs } from '../../../core/rungs/tools.js';

const text = (t: string): ModelReply => ({ text: t, toolCalls: [] });
const calls = (...toolCalls: [string, string][]): ModelReply => ({
  text: '',
  toolCalls: toolCalls.map(([name, args], i): ToolCall => ({ id: `c${i}`, name, arguments: args })),
});

describe('R0 replies, read as the paper’s harness read them', () => {
  it.each([
    ['Red is new.\nDECISION: KEEP', 'commit', 'tag'],
    ['Too early.\nDECISION: PASS', 'pass', 'tag'],
    ['**DECISION: pass**', 'pass', 'tag'],
    // The last DECISION line wins.
    ['DECISION: KEEP\nOn reflection, no.\nDECISION: PASS', 'pass', 'tag'],
    ['DECISION: PASS\nDECISION: **KEEP**', 'commit', 'tag'],
    // Else a KEEP/PASS word leading the reply.
    ['PASS.\n\n(Thinking: too early to tell.)', 'pass', 'lead'],
    ['**Keep** — it has come twice.', 'commit', 'lead'],
    // Else any KEEP/PASS token (the last); a DECISION line with another word does not count.
    ['DECISION: KEE** (corrected to "PASS")', 'pass', 'scan'],
    ['I lean towards KEEP here, as it recurs.', 'commit', 'scan'],
  ])('%j decides %s (%s)', (reply, action, how) => {
    expect(parseReply('R0', text(reply))).toEqual({ resolved: true, action, how });
  });

  it.each([['I would keep it.'], [''], ['COLLECT, since it is already kept.\nDECISION: COLLECT'], ['Passing would be wise.']])(
    '%j has no decision: unresolved, a pass',
    (reply) => {
      expect(parseReply('R0', text(reply))).toMatchObject({ resolved: false, action: 'pass', failure: 'no-decision' });
    },
  );

  it('reads strictly under --strict-parse: one DECISION line, or several that agree, and nothing else', () => {
    expect(parseReply('R0', text('DECISION: KEEP\n\nDECISION: KEEP'), { strict: true })).toEqual({
      resolved: true,
      action: 'commit',
      how: 'strict',
    });
    expect(parseReply('R0', text('PASS.'), { strict: true })).toMatchObject({ resolved: false, failure: 'no-decision' });
    expect(parseReply('R0', text('DECISION: MAYBE'), { strict: true })).toMatchObject({ resolved: false, failure: 'unparsable' });
    expect(parseReply('R0', text('DECISION: KEEP\nDECISION: PASS'), { strict: true })).toMatchObject({
      resolved: false,
      failure: 'several-decisions',
    });
  });
});

describe('tool-rung replies', () => {
  it('decide by the decisive call', () => {
    expect(parseReply('R1', calls(['claim_solver', '{}']))).toEqual({ resolved: true, action: 'commit', how: 'tool' });
    expect(parseReply('R1', calls(['skip_solver', '']))).toEqual({ resolved: true, action: 'pass', how: 'tool' });
    expect(parseReply('probe', calls(['keep', '{}']))).toEqual({ resolved: true, action: 'commit', how: 'tool' });
    expect(parseReply('R2', calls(['claim_solver', JSON.stringify({ code: 'def solve(inputs): return 1' })]))).toEqual({
      resolved: true,
      action: 'commit',
      how: 'tool',
    });
  });

  it('ignore calls to unknown tools beside a decisive one, and arguments given to a zero-argument tool', () => {
    expect(parseReply('R1', calls(['solve', '{}'], ['claim_solver', '{}']))).toEqual({ resolved: true, action: 'commit', how: 'tool' });
    for (const args of ['null', '{"reason": "recurs"}', '{"code": ', 'not json']) {
      expect(parseReply('probe', calls(['pass', args]))).toEqual({ resolved: true, action: 'pass', how: 'tool' });
      expect(parseReply('R1', calls(['claim_solver', args]))).toEqual({ resolved: true, action: 'commit', how: 'tool' });
    }
  });

  it('apply the first of two decisive calls and count the turn as unparsed', () => {
    expect(parseReply('R1', calls(['claim_solver', '{}'], ['skip_solver', '{}']))).toMatchObject({
      resolved: true,
      action: 'commit',
      failure: 'several-decisions',
    });
    expect(parseReply('probe', calls(['pass', '{}'], ['keep', '{}']))).toMatchObject({
      resolved: true,
      action: 'pass',
      failure: 'several-decisions',
    });
  });

  it.each([
    ['R1', calls(), 'no-decision'],
    ['R1', calls(['solve', '{}']), 'unknown-function'],
    ['probe', calls(['claim_solver', '{}']), 'unknown-function'],
    ['R2', calls(['claim_solver', '{}']), 'malformed-arguments'],
    ['R2', calls(['claim_solver', '{"code": "   "}']), 'malformed-arguments'],
    ['R2', calls(['claim_solver', '{"code": ']), 'malformed-arguments'],
  ] as const)('%s: %j is %s', (rung, reply, failure) => {
    expect(parseReply(rung, reply)).toMatchObject({ resolved: false, action: 'pass', failure });
  });
});

describe('tool calls left in a local model’s text', () => {
  const tools = ['claim_solver', 'skip_solver'];

  it('are recovered from a <tool_call> block, or else from a fenced JSON object naming an offered tool', () => {
    expect(recoverToolCalls('Skip it.\n<tool_call>\n{"name": "skip_solver", "arguments": {}}\n</tool_call>', tools)).toEqual([
      { id: 'recovered-1', name: 'skip_solver', arguments: '{}' },
    ]);
    const fenced = 'I will claim.\n```json\n{"name": "claim_solver", "arguments": {"code": "def solve(i): return 1"}}\n```';
    const [call] = recoverToolCalls(fenced, tools);
    expect(call?.name).toBe('claim_solver');
    expect(JSON.parse(call?.arguments ?? '')).toEqual({ code: 'def solve(i): return 1' });
  });

  it('are not invented from other JSON, unknown tools or broken blocks', () => {
    expect(recoverToolCalls('```json\n{"answer": 42}\n```', tools)).toEqual([]);
    expect(recoverToolCalls('<tool_call>{"name": "solve", "arguments": {}}</tool_call>', tools)).toEqual([]);
    expect(recoverToolCalls('<tool_call>{"name": "skip_solver", </tool_call>', tools)).toEqual([]);
    expect(recoverToolCalls('```json\n\n```', tools)).toEqual([]);
  });
});

describe('tool schemas', () => {
  it('derive JSON schemas from the zod definitions, and describe the probe in the session’s vocabulary', () => {
    expect(toolSpecs({ rung: 'R0', reskin: 'ball' })).toEqual([]);
    expect(toolSpecs({ rung: 'probe', reskin: 'ball' }).map((t) => t.name)).toEqual(['keep', 'pass']);
    expect(toolSpecs({ rung: 'probe', reskin: 'quiver' })[0]?.description).toMatch(/current arrow.*every later arrow of the same feather/);
    const [claim, skip] = toolSpecs({ rung: 'R2', reskin: 'ball' });
    expect(claim?.parameters).toMatchObject({ type: 'object', required: ['code'], properties: { code: { type: 'string' } } });
    expect(skip?.parameters).toMatchObject({ type: 'object', properties: {} });
    expect(toolSpecs({ rung: 'R1', reskin: 'ball' })[0]?.parameters).toMatchObject({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });
});

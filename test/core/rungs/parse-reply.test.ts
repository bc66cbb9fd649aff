import { describe, expect, it } from 'vitest';
import type { ModelReply, ToolCall } from '../../../core/chat/messages.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { toolSpecs } from '../../../core/rungs/tools.js';

const text = (t: string): ModelReply => ({ text: t, toolCalls: [] });
const calls = (...toolCalls: [string, string][]): ModelReply => ({
  text: '',
  toolCalls: toolCalls.map(([name, args], i): ToolCall => ({ id: `c${i}`, name, arguments: args })),
});

describe('R0 replies', () => {
  it.each([
    ['Red is new.\nDECISION: KEEP', 'commit'],
    ['Too early.\nDECISION: PASS', 'pass'],
    ['**DECISION: pass**', 'pass'],
    ['DECISION: KEEP\n\nDECISION: KEEP', 'commit'],
  ])('%j decides %s', (reply, action) => {
    expect(parseReply('R0', text(reply))).toEqual({ resolved: true, action });
  });

  it.each([
    ['I would keep it.', 'no-decision'],
    ['', 'no-decision'],
    ['DECISION: MAYBE', 'unparsable'],
    ['DECISION: KEEP\nDECISION: PASS', 'several-decisions'],
  ])('%j is a model-level failure (%s) that defaults to pass', (reply, failure) => {
    expect(parseReply('R0', text(reply))).toMatchObject({ resolved: false, action: 'pass', failure });
  });
});

describe('tool-rung replies', () => {
  it('decide by the single decisive call', () => {
    expect(parseReply('R1', calls(['claim_solver', '{}']))).toEqual({ resolved: true, action: 'commit' });
    expect(parseReply('R1', calls(['skip_solver', '']))).toEqual({ resolved: true, action: 'pass' });
    expect(parseReply('probe', calls(['keep', '{}']))).toEqual({ resolved: true, action: 'commit' });
    expect(parseReply('R2', calls(['claim_solver', JSON.stringify({ code: 'def solve(inputs): return 1' })]))).toEqual({
      resolved: true,
      action: 'commit',
    });
  });

  it.each([
    ['R1', calls(), 'no-decision'],
    ['R1', calls(['claim_solver', '{}'], ['skip_solver', '{}']), 'several-decisions'],
    ['R1', calls(['claim_solver', '{}'], ['claim_solver', '{}']), 'several-decisions'],
    ['R1', calls(['solve', '{}']), 'unknown-function'],
    ['probe', calls(['claim_solver', '{}']), 'unknown-function'],
    ['R1', calls(['claim_solver', '{"code": ']), 'malformed-arguments'],
    ['R1', calls(['claim_solver', '{"code": "x"}']), 'malformed-arguments'],
    ['R2', calls(['claim_solver', '{}']), 'malformed-arguments'],
    ['R2', calls(['claim_solver', '{"code": "   "}']), 'malformed-arguments'],
  ] as const)('%s: %j is %s', (rung, reply, failure) => {
    expect(parseReply(rung, reply)).toMatchObject({ resolved: false, action: 'pass', failure });
  });
});

describe('tool schemas', () => {
  it('derive JSON schemas from the zod definitions', () => {
    expect(toolSpecs('R0')).toEqual([]);
    expect(toolSpecs('probe').map((t) => t.name)).toEqual(['keep', 'pass']);
    const [claim, skip] = toolSpecs('R2');
    expect(claim?.parameters).toMatchObject({ type: 'object', required: ['code'], properties: { code: { type: 'string' } } });
    expect(skip?.parameters).toMatchObject({ type: 'object', properties: {} });
    expect(toolSpecs('R1')[0]?.parameters).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
  });
});

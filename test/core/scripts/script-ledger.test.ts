import { describe, expect, it } from 'vitest';
import { matchesGold } from '../../../core/scripts/answer-match.js';
import { parseScriptCall } from '../../../core/scripts/parse-script-call.js';
import { emptyLedger, recordAction, resolveScriptCall } from '../../../core/scripts/script-ledger.js';
import { decodeScriptActions, encodeScriptActions } from '../../../core/scripts/script-turn.js';
import { nextScriptPoint } from '../../../core/scripts/script-walk.js';
import { scriptToolSpecs } from '../../../core/scripts/script-tools.js';

const reply = (...calls: [string, string][]) => ({
  text: '',
  toolCalls: calls.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args })),
});

describe('R3 calls', () => {
  it('parse exactly one valid call to one of the three tools', () => {
    expect(parseScriptCall(reply(['write_script', '{"code":"function solve(i){return 1}"}']))).toEqual({
      resolved: true,
      call: { tool: 'write_script', code: 'function solve(i){return 1}' },
    });
    expect(parseScriptCall(reply(['run_script', '{"script_id":"s2"}']))).toEqual({
      resolved: true,
      call: { tool: 'run_script', scriptId: 's2' },
    });
    expect(parseScriptCall(reply(['answer', '{"answer": 42}']))).toEqual({ resolved: true, call: { tool: 'answer', answer: '42' } });
    // An integer beyond 2^53 keeps its digits (JSON.parse alone would round it).
    expect(parseScriptCall(reply(['answer', '{"answer": 225679868598601123457}']))).toEqual({
      resolved: true,
      call: { tool: 'answer', answer: '225679868598601123457' },
    });
  });

  it.each([
    [reply(), 'no-decision'],
    [reply(['answer', '{"answer":1}'], ['answer', '{"answer":2}']), 'several-decisions'],
    [reply(['claim_solver', '{}']), 'unknown-function'],
    [reply(['write_script', '{"code": ']), 'malformed-arguments'],
    [reply(['write_script', '{"code": "  "}']), 'malformed-arguments'],
    [reply(['run_script', '{"id": "s1"}']), 'malformed-arguments'],
    [reply(['answer', '{"answer": [1]}']), 'malformed-arguments'],
  ])('map a bad reply to its model-level failure (%#)', (bad, failure) => {
    expect(parseScriptCall(bad)).toMatchObject({ resolved: false, failure });
  });

  it('offer JSON schemas that require each tool argument', () => {
    const specs = scriptToolSpecs();
    expect(specs.map((s) => s.name)).toEqual(['write_script', 'run_script', 'answer']);
    expect(specs.map((s) => s.parameters.required)).toEqual([['code'], ['script_id'], ['answer']]);
  });
});

describe('the R3 ledger', () => {
  it('binds each write to its class, refuses cross-class runs and writes past the budget', () => {
    const write = parseScriptCall(reply(['write_script', '{"code":"x"}']));
    const runS1 = parseScriptCall(reply(['run_script', '{"script_id":"s1"}']));
    let ledger = emptyLedger(1);
    const first = resolveScriptCall(ledger, 4, write);
    expect(first).toEqual({ kind: 'write', scriptId: 's1', code: 'x' });
    ledger = recordAction(ledger, 4, 1, first.kind);
    expect(ledger.scripts).toEqual([{ id: 's1', classId: 4, t: 1 }]);
    expect(resolveScriptCall(ledger, 4, runS1)).toEqual({ kind: 'run', scriptId: 's1' });
    expect(resolveScriptCall(ledger, 2, runS1)).toEqual({ kind: 'run-refused', scriptId: 's1' });
    expect(resolveScriptCall(ledger, 2, write)).toEqual({ kind: 'write-refused' });
    expect(resolveScriptCall(ledger, 4, parseScriptCall(reply(['run_script', '{"script_id":"s9"}'])))).toMatchObject({
      kind: 'unresolved',
      failure: 'malformed-arguments',
    });
  });

  it('walks to the next turn with labels, writes left and the scripts the agent knows', () => {
    const classes = [5, 3, 5, 7];
    const setting = { budget: 2, charge: 0, classCount: 8 };
    const point = nextScriptPoint(classes, setting, ['answer', 'write', 'run-refused']);
    expect(point).toMatchObject({ t: 4, classId: 7, scripts: [{ id: 's1', label: 1, t: 2 }] });
    expect(point?.observation).toMatchObject({ turn: 4, label: 2, occurrence: 1, remaining: 1, counts: [2, 1, 1], held: [1] });
    expect(nextScriptPoint(classes, setting, ['answer', 'answer', 'answer', 'answer'])).toBeNull();
    expect(decodeScriptActions(encodeScriptActions(['write', 'write-refused', 'run', 'run-refused', 'answer', 'unresolved']))).toEqual([
      'write',
      'write-refused',
      'run',
      'run-refused',
      'answer',
      'unresolved',
    ]);
  });
});

describe('gold matching', () => {
  it('accepts an equal number or integer text, and nothing else', () => {
    expect(matchesGold(4120597, '4120597')).toBe(true);
    expect(matchesGold('4120597', '4120597')).toBe(true);
    expect(matchesGold(' 4120597 ', '4120597')).toBe(true);
    expect(matchesGold('+4120597', '4120597')).toBe(true);
    expect(matchesGold('4120597.0', '4120597')).toBe(true);
    expect(matchesGold('4.120597e6', '4120597')).toBe(true);
    expect(matchesGold('41205970E-1', '4120597')).toBe(true);
    expect(matchesGold('4120597.5', '4120597')).toBe(false);
    expect(matchesGold('4.1205975e6', '4120597')).toBe(false);
    expect(matchesGold(4120598, '4120597')).toBe(false);
    expect(matchesGold(4120597.5, '4120597')).toBe(false);
    expect(matchesGold('pass', '0')).toBe(false);
    expect(matchesGold('', '0')).toBe(false);
    expect(matchesGold('.', '0')).toBe(false);
    expect(matchesGold('0.000', '0')).toBe(true);
    expect(matchesGold(null, '0')).toBe(false);
    expect(matchesGold([4120597], '4120597')).toBe(false);
    expect(matchesGold('1e999999', '1')).toBe(false);
  });

  it('compares golds beyond 2^53 exactly, never through a double', () => {
    const gold = '225679868598601123457'; // not a double: the nearest is 225679868598601121792
    expect(matchesGold(gold, gold)).toBe(true);
    expect(matchesGold(`${gold}.000`, gold)).toBe(true);
    expect(matchesGold(BigInt(gold), gold)).toBe(true);
    expect(matchesGold('225679868598601121792', gold)).toBe(false);
    expect(matchesGold(Number(gold), gold)).toBe(false);
    expect(matchesGold('9007199254740993', '9007199254740992')).toBe(false);
    expect(matchesGold(2 ** 60, String(2n ** 60n))).toBe(true); // a double that is exactly the gold
  });
});

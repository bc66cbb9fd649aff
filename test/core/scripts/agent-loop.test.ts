import { describe, expect, it } from 'vitest';
import { applyReply, nextLoopEffect, startLoop, type LoopRules, type LoopState } from '../../../core/scripts/agent-loop.js';
import { readLoopCalls, headOf } from '../../../core/scripts/read-loop-calls.js';

// Classes of the problems: 0 1 0 2.
const rules: LoopRules = { classes: [0, 1, 0, 2], budget: 2, end: 'stream-end' };
const write = (name: string) => ({ tool: 'write_script' as const, name });
const run = (name: string) => ({ tool: 'run_script' as const, name });
const submit = { tool: 'submit_answer' as const };

function play(state: LoopState, ...replies: Parameters<typeof applyReply>[2][]) {
  return replies.reduce((current, calls) => applyReply(current, rules, calls).state, state);
}

describe('the R3 agent loop', () => {
  it('asks for the first problem, then binds a write to its class, runs it and moves on by submitting', () => {
    expect(nextLoopEffect(startLoop(), rules)).toEqual({ kind: 'ask', call: 1, t: 1, prompt: 'problem' });
    const written = applyReply(startLoop(), rules, [write('a')]);
    expect(written).toMatchObject({
      outcomes: [{ kind: 'written', name: 'a' }],
      advanced: null,
      state: { t: 1, calls: 1, writes: 1, scripts: [['a', 0]], prompt: null },
    });
    const ran = applyReply(written.state, rules, [run('a'), submit]);
    expect(ran).toMatchObject({
      outcomes: [{ kind: 'run' }, { kind: 'submitted' }],
      advanced: 'submitted',
      state: { t: 2, calls: 2, prompt: 'problem' },
    });
    expect(nextLoopEffect(ran.state, rules)).toEqual({ kind: 'ask', call: 3, t: 2, prompt: 'problem' });
  });

  it('refuses a run on another class, and a missing script, without charging anything', () => {
    const onSecond = play(startLoop(), [write('a'), submit]);
    const step = applyReply(onSecond, rules, [
      run('a'),
      run('b'),
      { tool: 'read_script', name: 'b' },
      { tool: 'list_scripts' },
      { tool: 'read_script', name: 'a' },
    ]);
    expect(step.outcomes.map((o) => o.kind)).toEqual(['run-refused', 'run-missing', 'read-missing', 'listed', 'read']);
    expect(step.state).toMatchObject({ writes: 1, t: 2 });
    // Back on class 0 at problem 3 the script runs.
    const third = play(onSecond, [submit]);
    expect(applyReply(third, rules, [run('a')]).outcomes).toEqual([{ kind: 'run', name: 'a' }]);
  });

  it('refuses a write with none left; a rewrite of a name spends a write and rebinds it', () => {
    const spent = play(startLoop(), [write('a'), submit], [write('a')]);
    expect(spent.scripts).toEqual([['a', 1]]);
    expect(applyReply(spent, rules, [write('c')]).outcomes).toEqual([{ kind: 'write-refused', name: 'c' }]);
  });

  it('ends right after the B-th write under the publication protocol, skipping the rest of the reply', () => {
    const paper: LoopRules = { ...rules, end: 'budget-exhausted' };
    const first = applyReply(startLoop(), paper, [write('a'), submit]).state;
    const step = applyReply(first, paper, [write('b'), run('b'), submit]);
    expect(step.outcomes.map((o) => o.kind)).toEqual(['written', 'skipped', 'skipped']);
    expect(nextLoopEffect(step.state, paper)).toEqual({ kind: 'done', reason: 'budget-exhausted' });
  });

  it('reminds after a reply without a tool call and gives the problem up after a second in a row', () => {
    const reminded = applyReply(startLoop(), rules, []);
    expect(reminded).toMatchObject({ advanced: null, state: { t: 1, silent: 1, prompt: 'reminder' } });
    const forced = applyReply(reminded.state, rules, []);
    expect(forced).toMatchObject({ advanced: 'forced', state: { t: 2, silent: 0, prompt: 'problem' } });
    // A tool call in between resets the count.
    const reset = play(startLoop(), [], [{ tool: 'list_scripts' }], []);
    expect(reset).toMatchObject({ t: 1, silent: 1 });
  });

  it('counts an invalid call as such, skips calls after a submission, and ends with the stream', () => {
    const step = applyReply(startLoop(), rules, [{ tool: 'invalid' }, submit, write('late')]);
    expect(step.outcomes.map((o) => o.kind)).toEqual(['invalid', 'submitted', 'skipped']);
    expect(step.state.writes).toBe(0);
    const end = play(startLoop(), [submit], [submit], [submit], [submit]);
    expect(nextLoopEffect(end, rules)).toEqual({ kind: 'done', reason: 'stream-end' });
  });

  it('reads tool calls: unknown tools apart from bad arguments, big submitted integers keep their digits', () => {
    const calls = readLoopCalls({
      text: '',
      toolCalls: [
        { id: '1', name: 'solve_all', arguments: '{}' },
        { id: '2', name: 'run_script', arguments: '{"name": "a"}' },
        { id: '3', name: 'write_script', arguments: '{"name": "a", "code": ' },
        { id: '4', name: 'submit_answer', arguments: '{"value": 123456789012345678901}' },
        { id: '5', name: 'run_script', arguments: '{"name": "a", "inputs": {"N": 5}}' },
      ],
    });
    expect(calls.map((c) => c.tool)).toEqual(['unknown-tool', 'invalid', 'invalid', 'submit_answer', 'run_script']);
    expect(calls[3]).toEqual({ tool: 'submit_answer', value: '123456789012345678901' });
    expect(headOf(calls[4]!)).toEqual({ tool: 'run_script', name: 'a' });
  });
});

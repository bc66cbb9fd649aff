import { describe, expect, it } from 'vitest';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { runSession } from '../../../core/session/run-session.js';
import {
  afterDecision,
  afterLoopReply,
  callsMade,
  nextMove,
  observationAt,
  openingMessage,
  protocolRules,
  startProgress,
  type Progress,
} from '../../../core/session/turn-protocol.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { classSequence } from '../../../core/stream/stream.js';
import { framingOf } from '../../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../../core/sweep/sweep-config.js';
import { expandSweep } from '../../../core/sweep/expand-sweep.js';

const [r1, r3] = expandSweep(parseSweepConfig({ name: 'protocol', models: ['policy/commit-at-2'], rungs: ['R1', 'R3'], seeds: [2000] }));

describe('the turn protocol', () => {
  it("walks a decision rung's turns as the in-process engine plays them, one call per decision turn", () => {
    const spec = r1 ?? expect.unreachable();
    const stream = generateStream(spec.seed, spec.stream);
    const rules = protocolRules(spec, classSequence(stream));
    const policy = commitAtK(2);
    const asked: { t: number; action: string; opening: string }[] = [];
    let progress: Progress = startProgress(spec);
    for (let move = nextMove(progress, rules); move.kind !== 'done'; move = nextMove(progress, rules)) {
      if (move.kind !== 'decide') throw new Error('a loop call at R1');
      expect(move.call).toBe(move.point.t);
      const action = policy.decide(observationAt(move, rules));
      asked.push({ t: move.call, action, opening: openingMessage(framingOf(spec), move, stream.items) ?? '' });
      progress = afterDecision(progress, action);
    }
    expect(nextMove(progress, rules)).toEqual({ kind: 'done', reason: 'stream-end' });
    const engine = runSession(rules.classes, rules, policy).decisions;
    expect(asked.map(({ t, action }) => ({ t, action }))).toEqual(engine.map(({ t, action }) => ({ t, action })));
    expect(callsMade(progress)).toBe(engine.length);
    expect(asked.every(({ t, opening }) => opening.includes(`${t}`))).toBe(true);
  });

  it('makes R3 a sequence of loop calls that opens with the problem, then tool results, and ends after the B-th write', () => {
    const spec = r3 ?? expect.unreachable();
    const stream = generateStream(spec.seed, spec.stream);
    const rules = protocolRules(spec, classSequence(stream));
    let progress: Progress = startProgress(spec);
    const openings: (string | undefined)[] = [];
    // Write on every problem: each write is one call, so the B-th call spends the budget.
    for (let move = nextMove(progress, rules); move.kind !== 'done'; move = nextMove(progress, rules)) {
      expect(move).toMatchObject({ kind: 'loop-call', call: callsMade(progress) + 1 });
      openings.push(openingMessage(framingOf(spec), move, stream.items));
      const step = afterLoopReply(progress, move, [{ tool: 'write_script', name: `s${move.call}` }]);
      expect(step.outcomes).toEqual([{ kind: 'written', name: `s${move.call}` }]);
      progress = step.progress;
    }
    expect(nextMove(progress, rules)).toEqual({ kind: 'done', reason: 'budget-exhausted' });
    expect(openings).toHaveLength(spec.budget);
    expect(openings[0]).toMatch(/^Problem 1 of 60/);
    expect(openings.slice(1)).toEqual(openings.slice(1).map(() => undefined));
  });
});

import { describe, expect, it } from 'vitest';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import type { Policy } from '../../../core/policies/policy.js';
import type { LoopCallHead } from '../../../core/scripts/read-loop-calls.js';
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
  type AskMove,
  type Progress,
} from '../../../core/session/turn-protocol.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { classSequence } from '../../../core/stream/stream.js';
import { framingOf, sessionDirName, sessionKey, type SessionSpec } from '../../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../../core/sweep/sweep-config.js';
import { expandSweep } from '../../../core/sweep/expand-sweep.js';

const split = (settings: Record<string, unknown> = {}) =>
  expandSweep(
    parseSweepConfig({
      name: 'split',
      agent: { kind: 'split', planner: 'policy/commit-at-2', builder: 'policy/commit-at-2' },
      rungs: ['R3'],
      seeds: [2000],
      ...settings,
    }),
  )[0] as SessionSpec;

/** A builder's reply on its problem, given its calls on the problem so far and the problem's class label. */
type Builder = (move: Extract<AskMove, { kind: 'loop-call' }>, since: readonly LoopCallHead['tool'][], label: number) => LoopCallHead[];

/** Write where a write is available, run the type's script, submit. */
const writeRunSubmit: Builder = (move, since, label) => {
  const name = `type-${label}`;
  if (since.includes('run_script')) return [{ tool: 'submit_answer' }];
  return since.length === 0 && move.loopRules.budget > move.state.writes
    ? [{ tool: 'write_script', name }]
    : [{ tool: 'run_script', name }];
};

interface Played {
  readonly planned: { t: number; action: string; opening: string }[];
  readonly built: { t: number; calls: LoopCallHead['tool'][]; outcomes: string[]; opening: string | undefined }[];
  readonly end: string;
  readonly progress: Progress;
}

function play(spec: SessionSpec, planner: Policy, builder: Builder): Played {
  const stream = generateStream(spec.seed, spec.stream);
  const rules = protocolRules(spec, classSequence(stream));
  const planned: Played['planned'] = [];
  const built: Played['built'] = [];
  let progress = startProgress(spec);
  let since: LoopCallHead['tool'][] = [];
  for (let move = nextMove(progress, rules); ; move = nextMove(progress, rules)) {
    if (move.kind === 'done') return { planned, built, end: move.reason, progress };
    expect(move.call).toBe(move.kind === 'decide' ? move.point.t : progress.kind === 'split' && progress.loop.calls + 1);
    const opening = openingMessage(framingOf(spec, move.role), move, stream.items);
    if (move.kind === 'decide') {
      expect(move.role).toBe('planner');
      const action = planner.decide(observationAt(move, rules));
      planned.push({ t: move.call, action, opening: opening ?? '' });
      progress = afterDecision(progress, action);
      continue;
    }
    expect(move.role).toBe('builder');
    const heads = builder(move, since, observationAt(move, rules).label);
    const step = afterLoopReply(progress, move, heads);
    built.push({ t: move.state.t, calls: heads.map((h) => h.tool), outcomes: step.outcomes.map((o) => o.kind), opening });
    since = step.advanced ? [] : [...since, ...heads.map((h) => h.tool)];
    progress = step.progress;
  }
}

describe('the split agent on the turn protocol', () => {
  it('asks the planner exactly the R1 turns, hands the builder exactly the claimed problems, and ends after the B-th write', () => {
    const spec = split();
    expect(spec).toMatchObject({
      model: 'policy/commit-at-2',
      rung: 'R3',
      agent: { kind: 'split', builder: { model: 'policy/commit-at-2' } },
    });
    const stream = generateStream(spec.seed, spec.stream);
    const classes = classSequence(stream);
    const policy = commitAtK(2);
    const { planned, built, end } = play(spec, policy, writeRunSubmit);

    // The planner's turns are the R1 engine's, each opened by R1's own turn message.
    const r1 = runSession(classes, { budget: spec.budget, charge: 0, classCount: 8 }, policy).decisions;
    const claims = r1.filter((d) => d.action === 'commit');
    expect(claims).toHaveLength(spec.budget);
    const lastClaim = claims.at(-1)?.t as number;
    expect(planned.map(({ t, action }) => ({ t, action }))).toEqual(
      r1.filter((d) => d.t <= lastClaim).map(({ t, action }) => ({ t, action })),
    );
    const r1Spec = { ...spec, rung: 'R1' as const, agent: undefined };
    const r1Openings = (() => {
      const rules = protocolRules(r1Spec, classes);
      const openings: string[] = [];
      let progress = startProgress(r1Spec);
      for (let move = nextMove(progress, rules); move.kind !== 'done'; move = nextMove(progress, rules)) {
        openings.push(openingMessage(framingOf(r1Spec), move, stream.items) ?? '');
        progress = afterDecision(progress, policy.decide(observationAt(move, rules)));
      }
      return openings;
    })();
    expect(planned.map((p) => p.opening)).toEqual(r1Openings.slice(0, planned.length));

    // The builder gets every problem of a claimed type from its claim on, in order, and nothing else.
    const claimedAt = new Map(claims.map((c) => [c.classId, c.t]));
    const handed = classes.flatMap((classId, index) => {
      const claim = claimedAt.get(classId);
      return claim !== undefined && claim <= index + 1 && index + 1 <= lastClaim ? [index + 1] : [];
    });
    expect([...new Set(built.map((b) => b.t))]).toEqual(handed);
    // It writes once per claimed type, on the claiming problem; the B-th write ends the session, as R3's publication protocol does.
    expect(built.filter((b) => b.calls[0] === 'write_script').map((b) => b.t)).toEqual(claims.map((c) => c.t));
    expect(built.at(-1)).toMatchObject({ t: lastClaim, calls: ['write_script'], outcomes: ['written'] });
    expect(end).toBe('budget-exhausted');
    // Reuse: a later problem of a claimed type is run and submitted, with no write offered.
    const reuse = built.find((b) => !claims.some((c) => c.t === b.t));
    expect(reuse?.opening).toMatch(/no write is available/);
    expect(built.find((b) => b.t === claims[0]?.t)?.opening).toMatch(/^Problem \d+ of 60:[\s\S]*you may write one script for it/);
  });

  it('plays to the end of the stream under stream-end, giving up every problem the planner did not claim', () => {
    const spec = split({ r3: { end: 'stream-end' } });
    const classes = classSequence(generateStream(spec.seed, spec.stream));
    const { planned, built, end, progress } = play(spec, commitAtK(2), writeRunSubmit);
    expect(end).toBe('stream-end');
    const claims = planned.filter((p) => p.action === 'commit').map((p) => classes[p.t - 1]);
    const handed = new Set(built.map((b) => b.t));
    classes.forEach((classId, index) => {
      const t = index + 1;
      const claim = planned.find((p) => p.action === 'commit' && classes[p.t - 1] === classId);
      expect(handed.has(t), `problem ${t}`).toBe(claim !== undefined && claim.t <= t);
    });
    expect(new Set(claims).size).toBe(spec.budget);
    // Write, run, submit on each claim; run, submit on each later problem of a claimed type.
    expect(callsMade(progress)).toBe(planned.length + 3 * spec.budget + 2 * (handed.size - spec.budget));
  });

  it('gives the builder one write per claimed type: a second is refused, and an unused one waits for the type', () => {
    const spec = split({ r3: { end: 'stream-end' } });
    const classes = classSequence(generateStream(spec.seed, spec.stream));
    const firstClaimed = new Map<number, number>();
    // Write twice on a type's first handed problem unless it is the first type claimed, where it writes on the second.
    const builder: Builder = (move, since) => {
      const classId = classes[move.state.t - 1] as number;
      const first = firstClaimed.get(classId) ?? (firstClaimed.set(classId, move.state.t), move.state.t);
      const name = `s-${classId}`;
      const isFirstType = firstClaimed.size === 1;
      if (since.length > 0) return [{ tool: 'submit_answer' }];
      if (isFirstType && first === move.state.t) return [{ tool: 'submit_answer' }];
      return [
        { tool: 'write_script', name },
        { tool: 'write_script', name: `${name}-again` },
      ];
    };
    const { built } = play(spec, commitAtK(2), builder);
    const firstType = [...firstClaimed.keys()][0] as number;
    const onFirstType = built.filter((b) => classes[b.t - 1] === firstType && b.calls[0] === 'write_script');
    // The first claimed type's write waited for its second handed problem; every later write on it is refused.
    expect(onFirstType[0]?.outcomes).toEqual(['written', 'write-refused']);
    expect(onFirstType.slice(1).every((b) => b.outcomes.every((o) => o === 'write-refused'))).toBe(true);
    const written = built.flatMap((b) => b.outcomes.filter((o) => o === 'written'));
    expect(written).toHaveLength(spec.budget);
  });

  it('keys split sessions apart from the planner’s own R3 sessions', () => {
    const plain = expandSweep(parseSweepConfig({ name: 'p', models: ['policy/commit-at-2'], rungs: ['R3'], seeds: [2000] }))[0];
    const spec = split();
    expect(sessionKey(spec)).toBe('policy/commit-at-2/R3/split/policy/commit-at-2/B3-K0/n-hidden/seed-2000');
    expect(sessionKey(spec)).not.toBe(sessionKey(plain as SessionSpec));
    expect(sessionDirName(spec)).not.toBe(sessionDirName(plain as SessionSpec));
  });
});

import { applyReply, startLoop, type LoopRules, type LoopState, type LoopStep } from '../scripts/agent-loop.js';
import type { LoopCallHead } from '../scripts/read-loop-calls.js';
import { decodeActions, decodeClasses, encodeActions, encodeClasses } from './compact-codes.js';
import { nextDecisionPoint, type DecisionPoint } from './replay.js';
import { advance, startSession, turnKind, type Action, type SessionSetting } from './session-state.js';

/*
 * The split agent as a mode of the turn protocol (turn-protocol.ts): R3's
 * stream played by a planner that only decides whether to build — R1's claim
 * or skip, under R1's session rules — and a builder that plays R3's agent loop
 * (scripts/agent-loop.ts) on the problems of the types the planner claimed.
 * Each problem goes, in stream order, to
 *  - the builder, when its type is claimed (on the claiming problem or later):
 *    one write is available for the type until the builder writes its script;
 *    the type's later problems are answered with it;
 *  - the planner, when its type is unclaimed and claims are left: a decision
 *    turn exactly as at R1;
 *  - nobody, when the planner skipped it or no claims are left: the problem is
 *    given up unanswered, as R1 told the planner (skipping scores zero) and as
 *    R3 credits nothing but a submitted answer.
 * The builder never sees an unclaimed type, so the planner alone allocates.
 * With R3's publication protocol the session ends right after the builder's
 * B-th write (a script for each of B claimed types), as R3 ends after its B-th.
 */

/** The planner's decisions (one character each), the builder's loop and the classes it wrote a script for (one character each). */
export interface SplitProgress {
  readonly kind: 'split';
  readonly actions: string;
  readonly loop: LoopState;
  readonly built: string;
}

export interface SplitRules extends SessionSetting, LoopRules {}

export type SplitMove =
  /** The planner decides on this problem, as at an R1 turn. */
  | { readonly kind: 'plan'; readonly point: DecisionPoint }
  /** The builder's next loop call, on problem `state.t`, under the loop rules of that problem. */
  | { readonly kind: 'build'; readonly state: LoopState; readonly rules: LoopRules }
  | { readonly kind: 'done'; readonly reason: 'stream-end' | 'budget-exhausted' };

export const startSplit = (): SplitProgress => ({ kind: 'split', actions: '', loop: startLoop(), built: '' });

/**
 * The first problem from `from` on, and before `before`, whose type is
 * claimed when it arrives or at it, given the planner's decisions so far
 * (every decision before `before` is taken); null if none.
 */
function claimedProblem(rules: SplitRules, actions: readonly Action[], from: number, before: number): number | null {
  let state = startSession(rules);
  let next = 0;
  for (let t = 1; t < before; t++) {
    const classId = rules.classes[t - 1] as number;
    state = advance(state, classId, turnKind(state, classId) === 'decide' ? actions[next++] : undefined);
    if (t >= from && state.held.includes(classId)) return t;
  }
  return null;
}

/**
 * The loop rules of the builder's problem t: a write is allowed while t's type
 * has no script of the builder's (one write per claimed type); the write that
 * is the session's B-th ends it under R3's publication protocol.
 */
function builderRules(rules: SplitRules, progress: SplitProgress, t: number): LoopRules {
  const writable = !decodeClasses(progress.built).includes(rules.classes[t - 1] as number);
  const budget = progress.loop.writes + (writable ? 1 : 0);
  const last = writable && budget >= rules.budget;
  return { classes: rules.classes, budget, end: last ? rules.end : 'stream-end' };
}

/** Whose call comes next: the builder's on a claimed problem, else the planner's next decision, else the end. */
export function nextSplitMove(progress: SplitProgress, rules: SplitRules): SplitMove {
  if (progress.loop.spent) return { kind: 'done', reason: 'budget-exhausted' };
  const actions = decodeActions(progress.actions);
  const point = nextDecisionPoint(
    rules.classes,
    rules,
    actions.map((action) => ({ action })),
  );
  const t = claimedProblem(rules, actions, progress.loop.t, point?.t ?? rules.classes.length + 1);
  if (t !== null) {
    // The builder's earlier problem is over (submitted or given up) whenever it moves on to a later one.
    const state: LoopState = t === progress.loop.t ? progress.loop : { ...progress.loop, t, silent: 0, prompt: 'problem' };
    return { kind: 'build', state, rules: builderRules(rules, progress, t) };
  }
  return point ? { kind: 'plan', point } : { kind: 'done', reason: 'stream-end' };
}

export const afterPlannerDecision = (progress: SplitProgress, action: Action): SplitProgress => ({
  ...progress,
  actions: progress.actions + encodeActions([action]),
});

/** The builder's reply on its problem applied under that problem's loop rules. */
export function afterBuilderReply(
  progress: SplitProgress,
  move: Extract<SplitMove, { kind: 'build' }>,
  calls: readonly LoopCallHead[],
): LoopStep & { readonly progress: SplitProgress } {
  const step = applyReply(move.state, move.rules, calls);
  const wrote = step.outcomes.some((outcome) => outcome.kind === 'written');
  const built = wrote ? progress.built + encodeClasses([move.rules.classes[move.state.t - 1] as number]) : progress.built;
  return { ...step, progress: { ...progress, loop: step.state, built } };
}

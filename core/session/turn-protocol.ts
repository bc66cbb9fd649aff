import { FAMILY_NAMES } from '../families/family-names.js';
import type { Framing } from '../rungs/framing.js';
import { turnMessage } from '../rungs/turn-message.js';
import { applyReply, nextLoopEffect, startLoop, type LoopRules, type LoopState, type LoopStep } from '../scripts/agent-loop.js';
import { LOOP_FORMAT_REMINDER, problemMessage } from '../scripts/loop-messages.js';
import { loopObservation } from '../scripts/loop-observation.js';
import type { LoopCallHead } from '../scripts/read-loop-calls.js';
import type { StreamItem } from '../stream/stream.js';
import type { SessionSpec } from '../sweep/session-spec.js';
import { decodeActions, encodeActions } from './compact-codes.js';
import { afterBuilderReply, afterPlannerDecision, nextSplitMove, startSplit, type SplitProgress } from './split-protocol.js';
import type { Observation } from './observation.js';
import { nextDecisionPoint, type DecisionPoint } from './replay.js';
import type { Action, SessionSetting } from './session-state.js';

/*
 * The one turn protocol every rung runs on. A session is a sequence of model
 * calls; between two of them it holds only its progress, compact enough to
 * carry through Temporal history and continue-as-new. At R0–R2 and the probe
 * a call is one decision turn and the progress is the decisions taken, one
 * character each; at R3 a call is one step of the agent loop
 * (scripts/agent-loop.ts) and the progress is the loop's state. `nextMove`
 * says what comes next — ask the model, or done and why — and the reply moves
 * the progress on: `afterDecision` at a decision turn, `afterLoopReply` at R3,
 * whose accepted run_script calls the caller then runs. The split agent at R3
 * (split-protocol.ts) is a third mode: its planner's calls are decision turns
 * as at R1, its builder's are loop calls, and each move names its role. The
 * workflow, the activities and the cost estimator all walk a session through these.
 */

export type Progress =
  | { readonly kind: 'decisions'; readonly actions: string }
  | { readonly kind: 'loop'; readonly loop: LoopState }
  | SplitProgress;

/** The session's hidden class sequence and its rules. */
export interface ProtocolRules extends SessionSetting, LoopRules {}

export function protocolRules(spec: Pick<SessionSpec, 'budget' | 'charge' | 'script'>, classes: readonly number[]): ProtocolRules {
  return { classes, budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length, end: spec.script.end };
}

export type Move =
  /** Ask for the decision at this turn; `call` is the turn. A split agent's planner decides (`role`). */
  | { readonly kind: 'decide'; readonly call: number; readonly point: DecisionPoint; readonly role?: 'planner' }
  /**
   * Make the loop's next model call; `call` is its index, `loopRules` the
   * loop's rules for it (a split agent's builder has one write per claimed type).
   */
  | {
      readonly kind: 'loop-call';
      readonly call: number;
      readonly state: LoopState;
      readonly loopRules: LoopRules;
      readonly role?: 'builder';
    }
  | { readonly kind: 'done'; readonly reason: 'stream-end' | 'budget-exhausted' };

export type AskMove = Exclude<Move, { kind: 'done' }>;

/** The session's mode: decision turns (R0–R2, the probe), R3's loop, or R3's split agent. */
export function startProgress(spec: Pick<SessionSpec, 'rung' | 'agent'>): Progress {
  if (spec.agent?.kind === 'split') return startSplit();
  return spec.rung === 'R3' ? { kind: 'loop', loop: startLoop() } : { kind: 'decisions', actions: '' };
}

/** Model calls made so far. */
export function callsMade(progress: Progress): number {
  if (progress.kind === 'split') return progress.actions.length + progress.loop.calls;
  return progress.kind === 'loop' ? progress.loop.calls : progress.actions.length;
}

/** Decision turns taken so far (a split agent's planner's). */
export const decisionsMade = (progress: Progress): number => (progress.kind === 'loop' ? 0 : progress.actions.length);

export function nextMove(progress: Progress, rules: ProtocolRules): Move {
  if (progress.kind === 'split') {
    const move = nextSplitMove(progress, rules);
    if (move.kind === 'plan') return { kind: 'decide', call: move.point.t, point: move.point, role: 'planner' };
    if (move.kind === 'build')
      return { kind: 'loop-call', call: move.state.calls + 1, state: move.state, loopRules: move.rules, role: 'builder' };
    return move;
  }
  if (progress.kind === 'loop') {
    const effect = nextLoopEffect(progress.loop, rules);
    return effect.kind === 'done' ? effect : { kind: 'loop-call', call: effect.call, state: progress.loop, loopRules: rules };
  }
  const decided = decodeActions(progress.actions).map((action) => ({ action }));
  const point = nextDecisionPoint(rules.classes, rules, decided);
  return point ? { kind: 'decide', call: point.t, point } : { kind: 'done', reason: 'stream-end' };
}

/** The problem a call is made on, 1-based. */
export const problemOf = (move: AskMove): number => (move.kind === 'decide' ? move.point.t : move.state.t);

/**
 * The user message that opens a call, if any (an R3 call after tool results
 * has none). `framing` is the framing of the call's role (session-spec.ts, framingOf).
 */
export function openingMessage(framing: Framing, move: AskMove, items: readonly StreamItem[]): string | undefined {
  const item = items[problemOf(move) - 1];
  if (!item) throw new Error(`turn protocol: problem ${problemOf(move)} is past the ${items.length}-item stream`);
  if (move.kind === 'decide') return turnMessage(framing, move.point, item);
  if (move.state.prompt === 'problem') {
    const builder = move.role === 'builder' ? { writable: move.loopRules.budget > move.state.writes } : undefined;
    return problemMessage(move.state.t, items.length, item, builder);
  }
  return move.state.prompt === 'reminder' ? LOOP_FORMAT_REMINDER : undefined;
}

/** What the agent may know at a call, structured: the same information its prompt carries. */
export function observationAt(move: AskMove, rules: ProtocolRules): Observation {
  if (move.kind === 'decide') return move.point.observation;
  return loopObservation(rules.classes, move.state, { ...rules, budget: move.loopRules.budget });
}

export function afterDecision(progress: Progress, action: Action): Progress {
  if (progress.kind === 'split') return afterPlannerDecision(progress, action);
  if (progress.kind !== 'decisions') throw new Error('turn protocol: a decision given in an R3 session');
  return { kind: 'decisions', actions: progress.actions + encodeActions([action]) };
}

export function afterLoopReply(
  progress: Progress,
  move: AskMove,
  calls: readonly LoopCallHead[],
): LoopStep & { readonly progress: Progress } {
  if (move.kind !== 'loop-call') throw new Error('turn protocol: tool calls of the R3 loop at a decision turn');
  if (progress.kind === 'split') return afterBuilderReply(progress, { kind: 'build', state: move.state, rules: move.loopRules }, calls);
  const step = applyReply(move.state, move.loopRules, calls);
  return { ...step, progress: { kind: 'loop', loop: step.state } };
}

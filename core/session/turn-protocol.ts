import { FAMILY_NAMES } from '../families/family-names.js';
import type { Framing } from '../rungs/framing.js';
import type { Rung } from '../rungs/rung.js';
import { turnMessage } from '../rungs/turn-message.js';
import { applyReply, nextLoopEffect, startLoop, type LoopRules, type LoopState, type LoopStep } from '../scripts/agent-loop.js';
import { LOOP_FORMAT_REMINDER, problemMessage } from '../scripts/loop-messages.js';
import { loopObservation } from '../scripts/loop-observation.js';
import type { LoopCallHead } from '../scripts/read-loop-calls.js';
import type { StreamItem } from '../stream/stream.js';
import type { SessionSpec } from '../sweep/session-spec.js';
import { decodeActions, encodeActions } from './compact-codes.js';
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
 * whose accepted run_script calls the caller then runs. The workflow, the
 * activities and the cost estimator all walk a session through these.
 */

export type Progress = { readonly kind: 'decisions'; readonly actions: string } | { readonly kind: 'loop'; readonly loop: LoopState };

/** The session's hidden class sequence and its rules. */
export interface ProtocolRules extends SessionSetting, LoopRules {}

export function protocolRules(spec: Pick<SessionSpec, 'budget' | 'charge' | 'script'>, classes: readonly number[]): ProtocolRules {
  return { classes, budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length, end: spec.script.end };
}

export type Move =
  /** Ask for the decision at this turn; `call` is the turn. */
  | { readonly kind: 'decide'; readonly call: number; readonly point: DecisionPoint }
  /** Make the loop's next model call; `call` is its index. */
  | { readonly kind: 'loop-call'; readonly call: number; readonly state: LoopState }
  | { readonly kind: 'done'; readonly reason: 'stream-end' | 'budget-exhausted' };

export type AskMove = Exclude<Move, { kind: 'done' }>;

export const startProgress = (rung: Rung): Progress =>
  rung === 'R3' ? { kind: 'loop', loop: startLoop() } : { kind: 'decisions', actions: '' };

/** Model calls made so far. */
export const callsMade = (progress: Progress): number => (progress.kind === 'loop' ? progress.loop.calls : progress.actions.length);

export function nextMove(progress: Progress, rules: ProtocolRules): Move {
  if (progress.kind === 'loop') {
    const effect = nextLoopEffect(progress.loop, rules);
    return effect.kind === 'done' ? effect : { kind: 'loop-call', call: effect.call, state: progress.loop };
  }
  const decided = decodeActions(progress.actions).map((action) => ({ action }));
  const point = nextDecisionPoint(rules.classes, rules, decided);
  return point ? { kind: 'decide', call: point.t, point } : { kind: 'done', reason: 'stream-end' };
}

/** The problem a call is made on, 1-based. */
export const problemOf = (move: AskMove): number => (move.kind === 'decide' ? move.point.t : move.state.t);

/** The user message that opens a call, if any (an R3 call after tool results has none). */
export function openingMessage(framing: Framing, move: AskMove, items: readonly StreamItem[]): string | undefined {
  const item = items[problemOf(move) - 1];
  if (!item) throw new Error(`turn protocol: problem ${problemOf(move)} is past the ${items.length}-item stream`);
  if (move.kind === 'decide') return turnMessage(framing, move.point, item);
  if (move.state.prompt === 'problem') return problemMessage(move.state.t, items.length, item);
  return move.state.prompt === 'reminder' ? LOOP_FORMAT_REMINDER : undefined;
}

/** What the agent may know at a call, structured: the same information its prompt carries. */
export function observationAt(move: AskMove, rules: ProtocolRules): Observation {
  return move.kind === 'decide' ? move.point.observation : loopObservation(rules.classes, move.state, rules);
}

export function afterDecision(progress: Progress, action: Action): Progress {
  if (progress.kind !== 'decisions') throw new Error('turn protocol: a decision given in an R3 session');
  return { kind: 'decisions', actions: progress.actions + encodeActions([action]) };
}

export function afterLoopReply(
  move: AskMove,
  rules: ProtocolRules,
  calls: readonly LoopCallHead[],
): LoopStep & { readonly progress: Progress } {
  if (move.kind !== 'loop-call') throw new Error('turn protocol: tool calls of the R3 loop at a decision turn');
  const step = applyReply(move.state, rules, calls);
  return { ...step, progress: { kind: 'loop', loop: step.state } };
}

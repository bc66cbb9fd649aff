import type { DecisionRecord } from '../core/session/session-record.js';
import { SessionWalk } from '../core/session/session-walk.js';

/**
 * What each decision turn credited, in words, replaying the session rules over
 * the stream with the session's decisions: the item itself when its class was
 * built, and the items of built classes credited without a decision since the
 * previous decision turn.
 */
export function creditsOf(
  classes: readonly number[],
  rules: { budget: number; charge: number },
  decisions: readonly DecisionRecord[],
): Map<number, string> {
  const walk = new SessionWalk({ ...rules, classCount: null }, classes.length);
  const credits = new Map<number, string>();
  let since: number[] = [];
  let next = 0;
  for (const classId of classes) {
    const arrival = walk.arrive(classId);
    if (arrival.kind === 'credit') since.push(arrival.t);
    if (arrival.kind !== 'decide') continue;
    const decision = decisions[next++];
    if (!decision || decision.failure === 'truncated') break;
    const before =
      since.length > 0 ? `credited without a decision since the last turn: item${since.length > 1 ? 's' : ''} ${since.join(', ')}` : '';
    const own = decision.action === 'commit' ? 'this item credited (its class built)' : 'this item forfeited';
    credits.set(arrival.t, [own, before].filter(Boolean).join('; '));
    since = [];
    walk.decide(decision.action);
  }
  return credits;
}

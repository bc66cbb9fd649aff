import type { Action } from './session-state.js';

/*
 * One character per class and per decision: the session workflow's whole
 * state, small enough to pass through Temporal history at any stream length.
 */

export function encodeClasses(classes: readonly number[]): string {
  return classes.map((c) => c.toString(36)).join('');
}

export function decodeClasses(code: string): number[] {
  return Array.from(code, (c) => parseInt(c, 36));
}

export function encodeActions(actions: readonly Action[]): string {
  return actions.map((a) => (a === 'commit' ? 'c' : 'p')).join('');
}

export function decodeActions(code: string): Action[] {
  return Array.from(code, (c) => (c === 'c' ? 'commit' : 'pass'));
}

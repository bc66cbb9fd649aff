import type { ModelFailure, ParsedScriptCall } from './parse-script-call.js';

/**
 * R3's session rules (paper §3.3, B.2, B.6) as a pure ledger. Each accepted
 * write spends one of B writes and binds the new script to the hidden class
 * of the item it was written on. A run on an item of another class is
 * refused without executing or charging anything; a write with no writes
 * left is refused the same way. Whether an item is credited depends on the
 * script's output or the raw answer, which the activities check.
 */
export interface WrittenScript {
  /** "s1", "s2", ... in write order. */
  readonly id: string;
  /** Hidden class of the item it was written on. */
  readonly classId: number;
  /** Turn it was written at. */
  readonly t: number;
}

export interface ScriptLedger {
  readonly budget: number;
  readonly scripts: readonly WrittenScript[];
}

export type ScriptAction =
  | { readonly kind: 'write'; readonly scriptId: string; readonly code: string }
  | { readonly kind: 'write-refused' }
  | { readonly kind: 'run'; readonly scriptId: string }
  | { readonly kind: 'run-refused'; readonly scriptId: string }
  | { readonly kind: 'answer'; readonly answer: string }
  | { readonly kind: 'unresolved'; readonly failure: ModelFailure; readonly detail: string };

export type ScriptActionKind = ScriptAction['kind'];

/** Actions whose script the sandbox executes on the current item. */
export const executes = (kind: ScriptActionKind): kind is 'write' | 'run' => kind === 'write' || kind === 'run';

export const emptyLedger = (budget: number): ScriptLedger => ({ budget, scripts: [] });

export const writesLeft = (ledger: ScriptLedger) => ledger.budget - ledger.scripts.length;

/** What a parsed reply does at turn t, on an item of class `classId`. */
export function resolveScriptCall(ledger: ScriptLedger, classId: number, parsed: ParsedScriptCall): ScriptAction {
  if (!parsed.resolved) return { kind: 'unresolved', failure: parsed.failure, detail: parsed.detail };
  const { call } = parsed;
  switch (call.tool) {
    case 'write_script':
      return writesLeft(ledger) > 0
        ? { kind: 'write', scriptId: `s${ledger.scripts.length + 1}`, code: call.code }
        : { kind: 'write-refused' };
    case 'run_script': {
      const script = ledger.scripts.find((s) => s.id === call.scriptId);
      if (!script)
        return { kind: 'unresolved', failure: 'malformed-arguments', detail: `run_script: there is no script '${call.scriptId}'` };
      return script.classId === classId ? { kind: 'run', scriptId: script.id } : { kind: 'run-refused', scriptId: script.id };
    }
    case 'answer':
      return { kind: 'answer', answer: call.answer };
  }
}

/** The ledger after an action at turn t. */
export function recordAction(ledger: ScriptLedger, classId: number, t: number, kind: ScriptActionKind): ScriptLedger {
  if (kind !== 'write') return ledger;
  return { budget: ledger.budget, scripts: [...ledger.scripts, { id: `s${ledger.scripts.length + 1}`, classId, t }] };
}

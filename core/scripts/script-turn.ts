import type { ModelFailure } from './parse-script-call.js';
import type { ScriptActionKind } from './script-ledger.js';

/** One played R3 turn, as metrics need it. Every item of an R3 stream is a turn. */
export interface ScriptTurn {
  /** Turn, 1-based. */
  readonly t: number;
  readonly classId: number;
  /** Occurrence of the class at this turn, 1-based. */
  readonly occurrence: number;
  readonly action: ScriptActionKind;
  /** The script written, run or refused. */
  readonly scriptId?: string;
  /** Set exactly when the action is 'unresolved'. */
  readonly failure?: ModelFailure;
  /** The item scored: the script returned the gold answer (write, run) or the raw answer was correct. */
  readonly credited: boolean;
  /** write, run: the script returned a value rather than failing. */
  readonly scriptReturned?: boolean;
}

const CODES: Readonly<Record<ScriptActionKind, string>> = {
  write: 'w',
  'write-refused': 'W',
  run: 'r',
  'run-refused': 'x',
  answer: 'a',
  unresolved: '-',
};

/** One character per played turn: the R3 session workflow's whole state. */
export function encodeScriptActions(kinds: readonly ScriptActionKind[]): string {
  return kinds.map((kind) => CODES[kind]).join('');
}

export function decodeScriptActions(code: string): ScriptActionKind[] {
  const kinds = Object.keys(CODES) as ScriptActionKind[];
  return Array.from(code, (char) => {
    const kind = kinds.find((k) => CODES[k] === char);
    if (!kind) throw new Error(`unknown R3 action code '${char}'`);
    return kind;
  });
}

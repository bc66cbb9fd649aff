import type { ModelReply } from '../chat/messages.js';
import type { DecisionFailure, ReadRule } from '../session/session-record.js';
import type { Action } from '../session/session-state.js';
import type { DecisionRung } from './rung.js';
import { decisionTools, NO_ARGUMENTS } from './tools.js';

/** A model-level failure: the parser's own, or 'cut-off' (no decision before the output limit), which the call sets. */
export type ModelFailure = Exclude<DecisionFailure, 'truncated' | 'transport-error' | 'unknown-how'>;

/**
 * A reply turned into a decision, or into a model-level failure that defaults
 * to pass (paper B.6). Two decisive calls apply the first and still count the
 * turn as unparsed: resolved, with the failure 'several-decisions'.
 */
export type ParsedDecision =
  | {
      readonly resolved: true;
      readonly action: Action;
      readonly how: ReadRule;
      readonly failure?: 'several-decisions';
      readonly detail?: string;
    }
  | { readonly resolved: false; readonly action: 'pass'; readonly failure: ModelFailure; readonly detail: string };

export interface ParseOptions {
  /** R0: exactly one DECISION line (or several that agree), no fallback — the reading before the paper's rules. */
  readonly strict?: boolean;
}

const fail = (failure: ModelFailure, detail: string): ParsedDecision => ({ resolved: false, action: 'pass', failure, detail });
const decided = (word: string, how: ReadRule): ParsedDecision => ({
  resolved: true,
  action: word.toUpperCase() === 'KEEP' ? 'commit' : 'pass',
  how,
});

/** R0 as the paper's harness read it: the last DECISION line; else a leading KEEP/PASS; else any KEEP/PASS token; else none. */
function readUrn(text: string): ParsedDecision {
  const tagged = [...text.matchAll(/DECISION\s*:[\s*_`"']*(KEEP|PASS)\b/gi)].at(-1);
  if (tagged) return decided(tagged[1] as string, 'tag');
  const leading = /^[\s*_#>`"'([]*(KEEP|PASS)\b/i.exec(text);
  if (leading) return decided(leading[1] as string, 'lead');
  const token = [...text.matchAll(/\b(KEEP|PASS)\b/g)].at(-1);
  if (token) return decided(token[1] as string, 'scan');
  return fail('no-decision', 'no KEEP or PASS');
}

/** R0 read strictly: the reply must state DECISION: KEEP or DECISION: PASS, once (or consistently). */
function readUrnStrictly(text: string): ParsedDecision {
  const stated = [...text.matchAll(/DECISION\s*:\s*\**\s*([A-Za-z]*)/gi)].map((m) => (m[1] ?? '').toUpperCase());
  if (stated.length === 0) return fail('no-decision', 'no DECISION line');
  const unknown = stated.find((word) => word !== 'KEEP' && word !== 'PASS');
  if (unknown !== undefined) return fail('unparsable', `DECISION: ${unknown || '(empty)'} is neither KEEP nor PASS`);
  if (new Set(stated).size > 1) return fail('several-decisions', 'both KEEP and PASS stated');
  return decided(stated[0] as string, 'strict');
}

/**
 * Tool rungs as the paper's harness read them: calls to other tools are
 * ignored when a decisive call is present; arguments given to a zero-argument
 * tool are ignored; of two decisive calls the first applies and the turn
 * counts as unparsed. R2's claim needs its `code`.
 */
function readToolCalls(rung: Exclude<DecisionRung, 'R0'>, reply: ModelReply): ParsedDecision {
  const tools = decisionTools(rung);
  const decisive = reply.toolCalls.filter((call) => tools.some((tool) => tool.name === call.name));
  const [first] = decisive;
  if (!first) {
    const other = reply.toolCalls[0];
    return other ? fail('unknown-function', `unknown function ${other.name}`) : fail('no-decision', 'no tool call');
  }
  const tool = tools.find((t) => t.name === first.name) as (typeof tools)[number];
  if (tool.arguments !== NO_ARGUMENTS) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(first.arguments);
    } catch {
      return fail('malformed-arguments', `arguments of ${first.name} are not JSON`);
    }
    const valid = tool.arguments.safeParse(parsed);
    if (!valid.success) return fail('malformed-arguments', `${first.name}: ${valid.error.issues[0]?.message ?? 'invalid arguments'}`);
  }
  if (decisive.length > 1) {
    return {
      resolved: true,
      action: tool.action,
      how: 'tool',
      failure: 'several-decisions',
      detail: `${decisive.length} decisive calls; the first applies`,
    };
  }
  return { resolved: true, action: tool.action, how: 'tool' };
}

export function parseReply(rung: DecisionRung, reply: ModelReply, options: ParseOptions = {}): ParsedDecision {
  if (rung !== 'R0') return readToolCalls(rung, reply);
  return options.strict ? readUrnStrictly(reply.text) : readUrn(reply.text);
}

import { familyOfInputs } from '../../core/families/registry.js';
import type { ModelReply } from '../../core/chat/messages.js';
import type { Action } from '../../core/session/session-state.js';
import type { GenerateRequest } from './provider.js';
import { BROKEN_SCRIPT, REFERENCE_SCRIPTS } from './reference-scripts.js';

/** The R3 faults a policy agent can be told to inject, by turn. */
export interface BuilderFaults {
  /** Answer these turns directly and correctly (a hand-solve), unless a script applies. */
  readonly hand: ReadonlySet<number>;
  /** Run the newest script of another class at these turns (refused by the harness). */
  readonly cross: ReadonlySet<number>;
  /** Write a script that throws instead of the reference one, when writing at these turns. */
  readonly broken: ReadonlySet<number>;
}

/** A raw answer that is never correct: the builder declines to hand-solve. */
export const DECLINED_ANSWER = 'pass';

/**
 * The R3 reference builder: the policy's decision expressed through R3's
 * tools. A problem of a class with a script is solved by running it; where
 * the policy commits, it writes the reference script for the family, which it
 * recognizes from the inputs' key set (each family's differs), as a model would
 * from the problem;
 * otherwise it declines with a raw answer that cannot score.
 */
export function builderReply(request: GenerateRequest, decide: () => Action, faults: BuilderFaults, rationale: string): ModelReply {
  const o = request.observation;
  const inputs = request.inputs ?? {};
  const scripts = request.scripts ?? [];
  const call = (name: string, args: Record<string, unknown>): ModelReply => ({
    text: rationale,
    toolCalls: [{ id: `call_${o.turn}`, name, arguments: JSON.stringify(args) }],
  });
  const foreign = scripts.filter((script) => script.label !== o.label).at(-1);
  if (faults.cross.has(o.turn) && foreign) return call('run_script', { script_id: foreign.id });
  const own = scripts.filter((script) => script.label === o.label).at(-1);
  if (own) return call('run_script', { script_id: own.id });
  const family = familyOfInputs(inputs);
  if (faults.hand.has(o.turn) && family) return call('answer', { answer: family.solve(inputs).toString() });
  if (o.remaining > 0 && decide() === 'commit' && family) {
    return call('write_script', { code: faults.broken.has(o.turn) ? BROKEN_SCRIPT : REFERENCE_SCRIPTS[family.name] });
  }
  return call('answer', { answer: DECLINED_ANSWER });
}

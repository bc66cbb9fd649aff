import type { LoopCallHead } from './read-loop-calls.js';

/**
 * R3's agent loop as a pure state machine (HARNESS.md, R3). On each problem
 * the model may make any number of calls; a submitted answer moves to the next
 * problem. A write spends one of B writes and binds the script to the hidden
 * class of the current problem; a write with none left is refused. A run of a
 * script bound to another class is refused without running. A reply with no
 * tool call gets a format reminder; a second in a row advances the problem
 * unsubmitted. The workflow asks `nextLoopEffect` what to do and feeds each
 * reply's calls to `applyReply`; caps are checked by the activity that calls
 * the model.
 */
export interface LoopState {
  /** The current problem, 1-based; past the stream's end once it is played. */
  readonly t: number;
  /** Model calls made so far (the next call's index is calls + 1). */
  readonly calls: number;
  /** Successful writes so far. */
  readonly writes: number;
  /** Scripts by name with the hidden class each is bound to; a rewrite rebinds its name. */
  readonly scripts: readonly (readonly [name: string, classId: number])[];
  /** Consecutive replies without a tool call on the current problem. */
  readonly silent: number;
  /** The user message that opens the next call: the problem, a format reminder, or none (tool results only). */
  readonly prompt: 'problem' | 'reminder' | null;
  /** Set once the B-th write ended the session (the paper's publication protocol). */
  readonly spent?: true;
}

export interface LoopRules {
  readonly classes: readonly number[];
  readonly budget: number;
  /** Stop right after the B-th successful write, or play the whole stream. */
  readonly end: 'budget-exhausted' | 'stream-end';
}

/** What one tool call did. */
export type LoopOutcome =
  | { readonly kind: 'written'; readonly name: string }
  | { readonly kind: 'write-refused'; readonly name: string }
  /** The sandbox runs the script on the inputs the call passed. */
  | { readonly kind: 'run'; readonly name: string }
  | { readonly kind: 'run-refused'; readonly name: string }
  | { readonly kind: 'run-missing'; readonly name: string }
  | { readonly kind: 'listed' }
  | { readonly kind: 'read'; readonly name: string }
  | { readonly kind: 'read-missing'; readonly name: string }
  | { readonly kind: 'submitted' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'unknown-tool'; readonly name: string }
  /** A call after the one that submitted the problem or ended the session: not carried out. */
  | { readonly kind: 'skipped'; readonly after: 'submitted' | 'budget-exhausted' };

export type LoopOutcomeKind = LoopOutcome['kind'];

export interface LoopStep {
  readonly state: LoopState;
  readonly outcomes: readonly LoopOutcome[];
  /** The problem ended with this reply: answered, or given up after two replies without a tool call. */
  readonly advanced: 'submitted' | 'forced' | null;
}

export type LoopEffect =
  | { readonly kind: 'ask'; readonly call: number; readonly t: number; readonly prompt: LoopState['prompt'] }
  | { readonly kind: 'done'; readonly reason: 'stream-end' | 'budget-exhausted' };

export const startLoop = (): LoopState => ({ t: 1, calls: 0, writes: 0, scripts: [], silent: 0, prompt: 'problem' });

export function nextLoopEffect(state: LoopState, rules: LoopRules): LoopEffect {
  if (state.spent) return { kind: 'done', reason: 'budget-exhausted' };
  if (state.t > rules.classes.length) return { kind: 'done', reason: 'stream-end' };
  return { kind: 'ask', call: state.calls + 1, t: state.t, prompt: state.prompt };
}

export const classOfScript = (state: LoopState, name: string): number | undefined =>
  state.scripts.find(([scriptName]) => scriptName === name)?.[1];

/** The state after the model's reply at the next call, and what each of its tool calls did. */
export function applyReply(state: LoopState, rules: LoopRules, calls: readonly LoopCallHead[]): LoopStep {
  const classId = rules.classes[state.t - 1];
  if (classId === undefined) throw new Error(`R3 loop: problem ${state.t} is past the ${rules.classes.length}-item stream`);
  const counted = { ...state, calls: state.calls + 1 };
  if (calls.length === 0) {
    const forced = state.silent + 1 >= 2;
    return forced
      ? { state: { ...counted, t: state.t + 1, silent: 0, prompt: 'problem' }, outcomes: [], advanced: 'forced' }
      : { state: { ...counted, silent: state.silent + 1, prompt: 'reminder' }, outcomes: [], advanced: null };
  }
  let { writes, scripts } = state;
  let stop: 'submitted' | 'budget-exhausted' | null = null;
  const outcomes = calls.map((call): LoopOutcome => {
    if (stop) return { kind: 'skipped', after: stop };
    const name = call.name ?? '';
    switch (call.tool) {
      case 'write_script':
        if (writes >= rules.budget) return { kind: 'write-refused', name };
        writes++;
        scripts = [...scripts.filter(([other]) => other !== name), [name, classId]];
        if (writes === rules.budget && rules.end === 'budget-exhausted') stop = 'budget-exhausted';
        return { kind: 'written', name };
      case 'run_script': {
        const bound = scripts.find(([other]) => other === name)?.[1];
        if (bound === undefined) return { kind: 'run-missing', name };
        return bound === classId ? { kind: 'run', name } : { kind: 'run-refused', name };
      }
      case 'list_scripts':
        return { kind: 'listed' };
      case 'read_script':
        return scripts.some(([other]) => other === name) ? { kind: 'read', name } : { kind: 'read-missing', name };
      case 'submit_answer':
        stop = 'submitted';
        return { kind: 'submitted' };
      case 'invalid':
        return { kind: 'invalid' };
      case 'unknown-tool':
        return { kind: 'unknown-tool', name };
    }
  });
  const submitted = outcomes.some((outcome) => outcome.kind === 'submitted');
  const next: LoopState = {
    ...counted,
    writes,
    scripts,
    silent: 0,
    ...(submitted ? { t: state.t + 1, prompt: 'problem' as const } : { prompt: null }),
    ...(writes === rules.budget && rules.end === 'budget-exhausted' && { spent: true as const }),
  };
  return { state: next, outcomes, advanced: submitted ? 'submitted' : null };
}

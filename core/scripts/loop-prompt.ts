import type { Framing } from '../rungs/framing.js';
import { problemOpening } from '../rungs/problem-opening.js';

/*
 * R3's system prompts: what the paper's harness told the model (HARNESS.md,
 * R3), in our own sentences, and the split agent's builder's, which plays the
 * same loop on the problems a planner hands it. Scripts are JavaScript: they
 * run in isolated-vm, not in a Python interpreter.
 */

function tokenBudget(tokenCap: number | null): string {
  return tokenCap === null
    ? 'The session has no token budget.'
    : `The session has a budget of ${tokenCap.toLocaleString('en-US')} tokens (input not served from a cache, plus output); every tool result shows tokens_remaining, and the session ends when it runs out.`;
}

const BOUND_TO_TYPE =
  'A script is tied to the type of the problem it was written on: run_script only runs it on problems of that type, and refuses it on any other.';

const INSTRUCTION = [
  'Work through each problem with tool calls; you may make as many as you need, and submit_answer moves you to the next problem.',
  'A script is JavaScript source defining `function solve(inputs)` that returns the answer (a number, a BigInt or a decimal string); run_script passes it the inputs object you give, normally the named values shown with the problem.',
  'Scripts run in a sandbox with a time and memory limit: plain JavaScript with BigInt, and no modules, files, network or timers.',
].join(' ');

export function loopPrompt(framing: Framing, tokenCap: number | null): string {
  const { budget: B, charge: K } = framing;
  const rules = [
    ...problemOpening(framing),
    'Some types come back many times; others appear only once.',
    'Your score is the fraction of problems you answer correctly: a problem counts only through the value you give it with submit_answer, whether you worked it out yourself or with a script.',
    `You may save reusable scripts with write_script, at most ${B} times in the whole session. ${BOUND_TO_TYPE}`,
    'Scripts are optional. Nothing in the scoring favours using them or not using them.',
    ...(framing.economic
      ? [
          `Each script written costs ${K} points, charged once when you write it; every correct answer is still worth one point, and nothing else costs points.`,
        ]
      : []),
    tokenBudget(tokenCap),
  ].join(' ');
  return `${rules}\n\n${INSTRUCTION}`;
}

/** The split agent's builder: the planner decides which types get a script; the builder writes them and answers with them. */
export function builderPrompt(framing: Framing, tokenCap: number | null): string {
  const rules = [
    `You work with a planner on a stream of ${framing.horizon} numeric problems. Each problem has a hidden type.`,
    `The planner alone decides which types are worth a script, at most ${framing.budget} of them, and hands you the problems of those types.`,
    'The problem on which it claims a type comes to you with one write_script available for that type, and every later problem of the type comes to you too, to be answered with that script. Problems of other types never reach you.',
    'Your score is the fraction of the problems handed to you that you answer correctly: a problem counts only through the value you give it with submit_answer, whether a script returned it or you worked it out yourself.',
    BOUND_TO_TYPE,
    tokenBudget(tokenCap),
  ].join(' ');
  return `${rules}\n\n${INSTRUCTION}`;
}

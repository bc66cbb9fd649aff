import type { Framing } from '../rungs/framing.js';
import { problemOpening } from '../rungs/problem-opening.js';

/*
 * R3's system prompt: what the paper's harness told the model (HARNESS.md,
 * R3), in our own sentences. Scripts are JavaScript: they run in isolated-vm,
 * not in a Python interpreter.
 */
export function loopPrompt(framing: Framing, tokenCap: number | null): string {
  const { budget: B, charge: K } = framing;
  const rules = [
    ...problemOpening(framing),
    'Some types come back many times; others appear only once.',
    'Your score is the fraction of problems you answer correctly: a problem counts only through the value you give it with submit_answer, whether you worked it out yourself or with a script.',
    `You may save reusable scripts with write_script, at most ${B} times in the whole session. A script is tied to the type of the problem it was written on: run_script only runs it on problems of that type, and refuses it on any other.`,
    'Scripts are optional. Nothing in the scoring favours using them or not using them.',
    ...(framing.economic
      ? [
          `Each script written costs ${K} points, charged once when you write it; every correct answer is still worth one point, and nothing else costs points.`,
        ]
      : []),
    tokenCap === null
      ? 'The session has no token budget.'
      : `The session has a budget of ${tokenCap.toLocaleString('en-US')} tokens (input not served from a cache, plus output); every tool result shows tokens_remaining, and the session ends when it runs out.`,
  ].join(' ');
  const instruction = [
    'Work through each problem with tool calls; you may make as many as you need, and submit_answer moves you to the next problem.',
    'A script is JavaScript source defining `function solve(inputs)` that returns the answer (a number, a BigInt or a decimal string); run_script passes it the inputs object you give, normally the named values shown with the problem.',
    'Scripts run in a sandbox with a time and memory limit: plain JavaScript with BigInt, and no modules, files, network or timers.',
  ].join(' ');
  return `${rules}\n\n${instruction}`;
}

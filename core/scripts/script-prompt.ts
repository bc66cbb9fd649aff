import type { Framing } from '../rungs/framing.js';
import { problemOpening } from '../rungs/problem-opening.js';

/*
 * R3's system prompt. The paper names R3's tools but does not quote its
 * prompt (B.2), so its rules follow the R1/R2 sentences wherever they apply.
 * Scripts are JavaScript: they run in isolated-vm, not in a Python interpreter.
 */
export function scriptPrompt(framing: Framing): string {
  const { budget: B, charge: K } = framing;
  const rules = [
    ...problemOpening(framing),
    `You may write a script at most ${B} times. Writing a script tests it on the current problem and keeps it for the rest of the session.`,
    'On a later problem of the same type you may run a script you wrote instead of writing a new one; a script only runs on problems of the type it was written for, and running it on a problem of another type is refused.',
    'You may instead answer a problem directly.',
    'A problem scores one point when the script run on it returns the correct answer, or when your direct answer is correct; otherwise it scores zero.',
    'Decisions are final.',
    ...(framing.economic
      ? [
          `Each script written costs ${K} points, charged once when you write it; every solved problem is still worth one point, and running a script or answering costs nothing.`,
        ]
      : []),
  ].join(' ');
  const instruction = [
    'For each problem, you must call exactly one of write_script, run_script or answer.',
    'A script is JavaScript source defining `function solve(inputs)` that returns the answer (a number, a BigInt or a decimal string) for problems of this type; `inputs` is the JSON object shown with each problem.',
    'Scripts run in a sandbox with a time and memory limit: plain JavaScript with BigInt, and no modules, files, network or timers.',
  ].join(' ');
  return `${rules}\n\n${instruction}`;
}

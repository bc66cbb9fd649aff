import { z } from 'zod';
import type { ToolSpec } from '../chat/messages.js';

/** A script's name: how the model refers to it in later calls. */
const scriptName = z.string().trim().min(1, 'name must not be empty').max(100, 'name must be at most 100 characters');

/**
 * R3's five tools, with the names and arguments the paper's harness gave them
 * (HARNESS.md, R3), defined once as zod schemas: the JSON schema offered to
 * the model is derived from them, and the same schemas check what it sends back.
 */
export const LOOP_TOOL_ARGUMENTS = {
  write_script: z.strictObject({
    name: scriptName.describe('a name for the script, used to run or read it later'),
    code: z
      .string()
      .trim()
      .min(1, 'code must not be empty')
      .describe('JavaScript source defining function solve(inputs), which returns the answer as a number, a BigInt or a decimal string'),
  }),
  run_script: z.strictObject({
    name: scriptName.describe('the name of a script you wrote'),
    inputs: z
      .record(z.string(), z.unknown())
      .describe('the object passed to solve(inputs), normally the named values of the current problem'),
  }),
  list_scripts: z.strictObject({}),
  read_script: z.strictObject({ name: scriptName.describe('the name of a script you wrote') }),
  submit_answer: z.strictObject({
    value: z.union([z.string(), z.number()]).describe('your answer to the current problem, an integer'),
  }),
} as const;

export type LoopToolName = keyof typeof LOOP_TOOL_ARGUMENTS;
export const LOOP_TOOL_NAMES = Object.keys(LOOP_TOOL_ARGUMENTS) as LoopToolName[];

const DESCRIPTIONS: Readonly<Record<LoopToolName, string>> = {
  write_script:
    'Save a JavaScript script under a name. Each call uses one of your limited writes, even when it replaces a script of the same name, and ties the script to the hidden type of the current problem: it will only run on problems of that type. Saving does not run it. The result shows tokens_remaining.',
  run_script:
    'Run one of your scripts on the inputs you pass and see what solve(inputs) returns. Costs no write. A script tied to a different type than the current problem is refused and not run. Running does not answer the problem: submit the value yourself. The result shows tokens_remaining.',
  list_scripts: 'Show the names of the scripts you have written. The result shows tokens_remaining.',
  read_script: 'Show the source of one of your scripts. The result shows tokens_remaining.',
  submit_answer:
    'Give your answer to the current problem and move on to the next one. Only submitted answers are scored, each once. The result shows tokens_remaining.',
};

export function loopToolSpecs(): ToolSpec[] {
  return LOOP_TOOL_NAMES.map((name) => ({
    name,
    description: DESCRIPTIONS[name],
    parameters: z.toJSONSchema(LOOP_TOOL_ARGUMENTS[name]) as Record<string, unknown>,
  }));
}

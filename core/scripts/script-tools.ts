import { z } from 'zod';
import type { ToolSpec } from '../chat/messages.js';

/**
 * R3's three tools (paper §3.3, B.2), defined once as zod schemas: the JSON
 * schema offered to the model is derived from them, and the same schemas
 * validate the arguments the model sends back.
 */
export const SCRIPT_TOOL_ARGUMENTS = {
  write_script: z.strictObject({
    code: z
      .string()
      .trim()
      .min(1, 'code must not be empty')
      .describe(
        'JavaScript source defining function solve(inputs) that returns the answer (a number, BigInt or decimal string) for problems of this type',
      ),
  }),
  run_script: z.strictObject({
    script_id: z.string().trim().min(1, 'script_id must not be empty').describe('the id of a script you wrote, e.g. "s1"'),
  }),
  answer: z.strictObject({
    answer: z.union([z.string(), z.number()]).describe('your answer to the current problem, as an integer'),
  }),
} as const;

export type ScriptToolName = keyof typeof SCRIPT_TOOL_ARGUMENTS;
export const SCRIPT_TOOL_NAMES = Object.keys(SCRIPT_TOOL_ARGUMENTS) as ScriptToolName[];

const DESCRIPTIONS: Readonly<Record<ScriptToolName, string>> = {
  write_script:
    "Write a new reusable script for this problem's hidden type. Uses one of your writes. The script is tested on the current problem (which scores if it returns the correct answer) and kept for later problems of the same type.",
  run_script:
    'Run a script you wrote earlier on the current problem; the problem scores if it returns the correct answer. Uses no write. Refused, without running, if the script was written for a different type of problem.',
  answer: 'Answer the current problem directly, without a script. It scores only if the answer is correct.',
};

export function scriptToolSpecs(): ToolSpec[] {
  return SCRIPT_TOOL_NAMES.map((name) => ({
    name,
    description: DESCRIPTIONS[name],
    parameters: z.toJSONSchema(SCRIPT_TOOL_ARGUMENTS[name]) as Record<string, unknown>,
  }));
}

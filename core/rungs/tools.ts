import { z } from 'zod';
import type { ToolSpec } from '../chat/messages.js';
import type { Action } from '../session/session-state.js';
import { scriptToolSpecs } from '../scripts/script-tools.js';
import type { DecisionRung, Rung } from './rung.js';

/**
 * The decision tools of each tool rung, defined once as zod schemas: the JSON
 * schema offered to the model is derived from them, and the same schemas
 * validate the arguments the model sends back.
 */
export interface DecisionTool {
  readonly name: string;
  readonly action: Action;
  readonly description: string;
  readonly arguments: z.ZodType;
}

const noArguments = z.strictObject({});

const claimWithCode = z.strictObject({
  code: z
    .string()
    .trim()
    .min(1, 'code must not be empty')
    .describe('Python source defining def solve(inputs: dict) -> float for problems of this type'),
});

const skip: DecisionTool = {
  name: 'skip_solver',
  action: 'pass',
  description: 'Skip this problem: it scores zero.',
  arguments: noArguments,
};

export const DECISION_TOOLS: Readonly<Record<Exclude<DecisionRung, 'R0'>, readonly DecisionTool[]>> = {
  probe: [
    {
      name: 'keep',
      action: 'commit',
      description: 'Keep the current item: collect it and every future item with the same attribute.',
      arguments: noArguments,
    },
    { name: 'pass', action: 'pass', description: 'Pass on the current item: it scores zero.', arguments: noArguments },
  ],
  R1: [
    {
      name: 'claim_solver',
      action: 'commit',
      description:
        "Claim a solver for this problem's hidden type: it scores this problem and every future problem of the same type. Uses one claim.",
      arguments: noArguments,
    },
    skip,
  ],
  R2: [
    {
      name: 'claim_solver',
      action: 'commit',
      description:
        "Claim a solver for this problem's hidden type by providing its code: it scores this problem and every future problem of the same type. Uses one claim.",
      arguments: claimWithCode,
    },
    skip,
  ],
};

export function decisionTools(rung: DecisionRung): readonly DecisionTool[] {
  return rung === 'R0' ? [] : DECISION_TOOLS[rung];
}

/** The tools offered to the model at a rung (none at R0, which answers in text; R3 has its script tools). */
export function toolSpecs(rung: Rung): ToolSpec[] {
  if (rung === 'R3') return scriptToolSpecs();
  return decisionTools(rung).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: z.toJSONSchema(tool.arguments) as Record<string, unknown>,
  }));
}

import { z } from 'zod';
import type { ToolSpec } from '../chat/messages.js';
import type { Action } from '../session/session-state.js';
import { loopToolSpecs } from '../scripts/loop-tools.js';
import type { Framing } from './framing.js';
import type { DecisionRung } from './rung.js';
import { VOCABULARIES, type Vocabulary } from './vocabulary.js';

/**
 * The decision tools of each tool rung, defined once as zod schemas: the JSON
 * schema offered to the model is derived from them, and the same schemas
 * validate the arguments the model sends back. Descriptions speak the
 * session's vocabulary (the probe's reskins).
 */
export interface DecisionTool {
  readonly name: string;
  readonly action: Action;
  readonly describe: (v: Vocabulary) => string;
  readonly arguments: z.ZodType;
}

/** The arguments of a zero-argument tool: whatever a model passes to one is ignored. */
export const NO_ARGUMENTS = z.strictObject({});

const claimWithCode = z.strictObject({
  code: z
    .string()
    .trim()
    .min(1, 'code must not be empty')
    .describe('Python source defining def solve(inputs: dict) -> float for every problem of this type; all solving logic goes here'),
});

const skip: DecisionTool = {
  name: 'skip_solver',
  action: 'pass',
  describe: () => 'Decline this problem: it scores nothing, and no claim is used.',
  arguments: NO_ARGUMENTS,
};

const DECISION_TOOLS: Readonly<Record<Exclude<DecisionRung, 'R0'>, readonly DecisionTool[]>> = {
  probe: [
    {
      name: 'keep',
      action: 'commit',
      describe: (v) =>
        `Keep the current ${v.item}: it is collected now, and so is every later ${v.item} of the same ${v.attribute}. Uses one keep. This call is your decision.`,
      arguments: NO_ARGUMENTS,
    },
    {
      name: 'pass',
      action: 'pass',
      describe: (v) => `Pass on the current ${v.item}: it scores nothing, and no keep is used. This call is your decision.`,
      arguments: NO_ARGUMENTS,
    },
  ],
  R1: [
    {
      name: 'claim_solver',
      action: 'commit',
      describe: () =>
        "Claim a solver for this problem's hidden type: this problem and every later problem of that type are solved for you. Uses one claim.",
      arguments: NO_ARGUMENTS,
    },
    skip,
  ],
  R2: [
    {
      name: 'claim_solver',
      action: 'commit',
      describe: () =>
        "Claim a solver for this problem's hidden type by giving its code: this problem and every later problem of that type are solved for you. Uses one claim.",
      arguments: claimWithCode,
    },
    skip,
  ],
};

export function decisionTools(rung: DecisionRung): readonly DecisionTool[] {
  return rung === 'R0' ? [] : DECISION_TOOLS[rung];
}

/** The tools offered to the model (none at R0, which answers in text; R3 has its five loop tools). */
export function toolSpecs(framing: Pick<Framing, 'rung' | 'reskin'>): ToolSpec[] {
  if (framing.rung === 'R3') return loopToolSpecs();
  const vocabulary = VOCABULARIES[framing.reskin];
  return decisionTools(framing.rung).map((tool) => ({
    name: tool.name,
    description: tool.describe(vocabulary),
    parameters: z.toJSONSchema(tool.arguments) as Record<string, unknown>,
  }));
}

import type { StreamItem } from '../stream/stream.js';
import { listing } from '../rungs/english.js';
import type { ScriptPoint } from './script-walk.js';

/** The user message of an R3 turn: the problem, its inputs, the scripts written and the writes left. */
export function scriptTurnMessage(point: ScriptPoint, item: StreamItem): string {
  const o = point.observation;
  const scripts =
    point.scripts.length > 0
      ? `Your scripts: ${listing(point.scripts.map((script) => `${script.id} (written at problem ${script.t})`))}.`
      : 'You have written no scripts yet.';
  return [
    `Problem ${o.turn} of ${o.horizon}:\n${item.text}`,
    `Inputs, as solve(inputs) receives them: ${JSON.stringify(item.inputs)}`,
    `${scripts} Writes left: ${o.remaining} of ${o.budget}.`,
  ].join('\n\n');
}

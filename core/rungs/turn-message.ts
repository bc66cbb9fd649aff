import type { StreamItem } from '../stream/stream.js';
import type { DecisionPoint } from '../session/replay.js';
import { article, listing } from './english.js';
import type { Framing } from './framing.js';
import { isUrnRung } from './rung.js';
import { attributeValue, VOCABULARIES } from './vocabulary.js';

/*
 * The user message of a decision turn, carrying what the paper's harness told
 * the model (HARNESS.md) in our own words: what the stream did since the last
 * decision (items credited automatically, +1 each), the turn index out of T,
 * the current item, the budget left, and the question. It does not echo the
 * outcome of the model's own last decision, nor list what is held: the
 * conversation shows both.
 */

function urnMessage(framing: Framing, point: DecisionPoint): string {
  const v = VOCABULARIES[framing.reskin];
  const value = (label: number) => attributeValue(v, label);
  const o = point.observation;
  const lines = point.autoCredited.map(
    (credit) =>
      `Draw ${credit.t}: ${article(value(credit.label))} ${v.item}, a ${v.attribute} you kept, so it was collected automatically (+1).`,
  );
  const question = framing.rung === 'probe' ? 'Decide by calling the keep tool or the pass tool.' : 'KEEP or PASS?';
  lines.push(`Draw ${o.turn} of ${o.horizon}: ${article(value(o.label))} ${v.item}. Keeps left: ${o.remaining}. ${question}`);
  return lines.join('\n');
}

function problemMessage(framing: Framing, point: DecisionPoint, item: StreamItem): string {
  const o = point.observation;
  const parts: string[] = [];
  const solved = point.autoCredited.map((credit) => credit.t);
  if (solved.length > 0) {
    const problems = solved.length === 1 ? `problem ${solved[0]} was` : `problems ${listing(solved)} were`;
    parts.push(`Since your last decision, ${problems} of a type you claimed and solved automatically (+1 each).`);
  }
  if (framing.rung === 'R1') {
    parts.push(
      `Problem ${o.turn} of ${o.horizon} (only decide whether to claim a solver for its type; do not work out the answer):\n${item.text}`,
    );
    parts.push(`Claims left: ${o.remaining}. Call claim_solver or skip_solver.`);
  } else {
    parts.push(`Problem ${o.turn} of ${o.horizon}:\n${item.text}`);
    parts.push(
      `Claims left: ${o.remaining}. Call claim_solver, with all the solving logic in its code argument and none in your message, or skip_solver.`,
    );
  }
  return parts.join('\n\n');
}

export function turnMessage(framing: Framing, point: DecisionPoint, item: StreamItem): string {
  return isUrnRung(framing.rung) ? urnMessage(framing, point) : problemMessage(framing, point, item);
}

import type { StreamItem } from '../stream/stream.js';
import type { DecisionPoint } from '../session/replay.js';
import { article, capitalize, listing } from './english.js';
import type { Framing } from './framing.js';
import { isUrnRung } from './rung.js';
import { attributeValue, VOCABULARIES } from './vocabulary.js';

/*
 * The user message of a decision turn: what happened since the previous
 * decision (urn outcome feedback, automatic credits), then the current item
 * with the turn index and the remaining budget — the observation o_t = (x_t, b_t, t, h_t).
 */

function urnMessage(framing: Framing, point: DecisionPoint): string {
  const v = VOCABULARIES[framing.reskin];
  const value = (label: number) => attributeValue(v, label);
  const o = point.observation;
  const lines: string[] = [];
  const previous = point.previous;
  if (previous) {
    const what = `the ${value(previous.label)} ${v.item}`;
    if (!previous.resolved) lines.push(`No valid decision was given for ${what}, so it was passed.`);
    else if (previous.action === 'commit')
      lines.push(`You kept ${what}: every ${value(previous.label)} ${v.item} from now on is collected automatically.`);
    else lines.push(`You passed on ${what}.`);
  }
  for (const credit of point.autoCredited) {
    lines.push(`Draw ${credit.t}: ${article(value(credit.label))} ${v.item}, collected automatically.`);
  }
  const kept = o.held.length > 0 ? `Kept so far: ${listing(o.held.map(value))}.` : 'Nothing kept yet.';
  lines.push(`Draw ${o.turn} of ${o.horizon}: ${article(value(o.label))} ${v.item}. Keeps left: ${o.remaining} of ${o.budget}. ${kept}`);
  return lines.join('\n');
}

function problemMessage(framing: Framing, point: DecisionPoint, item: StreamItem): string {
  const o = point.observation;
  const parts: string[] = [];
  const solved = point.autoCredited.map((credit) => credit.t);
  if (solved.length > 0) {
    parts.push(
      `${capitalize(solved.length === 1 ? 'problem' : 'problems')} ${listing(solved)} ${solved.length === 1 ? 'was' : 'were'} solved automatically by a solver you claimed.`,
    );
  }
  parts.push(`Problem ${o.turn} of ${o.horizon}:\n${item.text}`);
  if (framing.rung === 'R2') parts.push(`Inputs, as solve(inputs) would receive them: ${JSON.stringify(item.inputs)}`);
  parts.push(`Claims left: ${o.remaining} of ${o.budget}.`);
  return parts.join('\n\n');
}

export function turnMessage(framing: Framing, point: DecisionPoint, item: StreamItem): string {
  return isUrnRung(framing.rung) ? urnMessage(framing, point) : problemMessage(framing, point, item);
}

import { article, capitalize } from './english.js';
import type { Framing } from './framing.js';
import { builderPrompt, loopPrompt } from '../scripts/loop-prompt.js';
import { problemOpening } from './problem-opening.js';
import { isUrnRung } from './rung.js';
import { VOCABULARIES, type Vocabulary } from './vocabulary.js';

/*
 * System prompts per rung. Sentences the paper quotes (Appendix B.2) are kept
 * verbatim, with the current T, N, B and vocabulary substituted.
 */

function urnDisclosure(v: Vocabulary, framing: Framing): string {
  const rest = `which ${v.attributes} are common or rare, nor how many ${v.items} of each ${v.attribute} there are; you learn the rates only from the draws you have seen.`;
  return framing.announceN
    ? `There are exactly ${framing.classCount} distinct ${v.attributes} in the ${v.container}, but you are not told ${rest}`
    : `You are not told how many distinct ${v.attributes} there are in the ${v.container}, ${rest}`;
}

function urnPrompt(framing: Framing): string {
  const v = VOCABULARIES[framing.reskin];
  const { horizon: T, budget: B, charge: K } = framing;
  const rules = [
    `You are playing a collection game: your goal is to collect as many ${v.items} as possible. ${T} ${v.items} will be drawn from ${article(v.container)}, one at a time.`,
    `At any draw you may KEEP the current ${v.item} or PASS. You may keep at most ${B} ${v.items} in total.`,
    `Keeping ${article(v.item)} immediately collects it and every future ${v.item} with the same ${v.attribute}.`,
    `Passing scores zero for that ${v.item}.`,
    `${capitalize(v.items)} whose ${v.attribute} you have already kept are collected automatically and do not create another decision.`,
    `Your choices do not change which ${v.items} are drawn, and they are final. Each collected ${v.item} is worth one point.`,
    ...(framing.economic
      ? [
          `Each keep costs ${K} points, charged once when you keep; every collected ${v.item} is still worth one point, and passing costs nothing.`,
        ]
      : []),
    urnDisclosure(v, framing),
  ].join(' ');
  const instruction =
    framing.rung === 'probe'
      ? 'For each draw, think briefly (one or two sentences), then call exactly one of the tools keep or pass. The call is your decision: no DECISION line is needed.'
      : 'For each draw, think briefly (one or two sentences), then end your reply with EXACTLY one line: DECISION: KEEP or DECISION: PASS.';
  return `${rules}\n\n${instruction}`;
}

function problemPrompt(framing: Framing): string {
  const { budget: B, charge: K } = framing;
  const rules = [
    ...problemOpening(framing),
    `You may claim a solver at most ${B} times. Claiming a solver scores the current problem and every future problem of the same type.`,
    'Skipping scores zero for that problem.',
    'Problems of a type you have already claimed are solved automatically and do not create another decision.',
    'Decisions are final. Each solved problem is worth one point.',
    ...(framing.economic
      ? [
          `Each claim costs ${K} points, charged once when you claim; every solved problem is still worth one point, and skipping costs nothing.`,
        ]
      : []),
  ].join(' ');
  const instruction =
    framing.rung === 'R1'
      ? 'For each problem, you must call exactly one of claim_solver or skip_solver. Do not compute an answer to the problem: you will not solve any problem yourself, and an answer you work out earns nothing.'
      : 'For each problem, you must call exactly one of claim_solver or skip_solver. You must provide `code`: a real, correct Python function `def solve(inputs: dict) -> float` that solves problems of this type—it stands in for every future problem of the same type for the rest of the session, so it should actually work, not just handle the problem currently shown.';
  return `${rules}\n\n${instruction}`;
}

export function systemPrompt(framing: Framing): string {
  if (framing.rung === 'R3') return (framing.role === 'builder' ? builderPrompt : loopPrompt)(framing, framing.tokenCap ?? null);
  return isUrnRung(framing.rung) ? urnPrompt(framing) : problemPrompt(framing);
}

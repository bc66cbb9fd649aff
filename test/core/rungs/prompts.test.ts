import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../../../core/rungs/system-prompt.js';
import type { Framing } from '../../../core/rungs/framing.js';
import { RESKINS, VOCABULARIES } from '../../../core/rungs/vocabulary.js';

const base: Framing = { rung: 'R0', horizon: 60, budget: 3, charge: 0, economic: false, classCount: 8, announceN: true, reskin: 'ball' };

describe('system prompts', () => {
  it("keep the paper's R0 disclosure and response instruction verbatim (Appendix B.2)", () => {
    const prompt = systemPrompt(base);
    expect(prompt).toContain(
      'There are exactly 8 distinct colors in the bag, but you are not told which colors are common or rare, nor how many balls of each color there are; you learn the rates only from the draws you have seen.',
    );
    expect(prompt).toContain(
      'For each draw, think briefly (one or two sentences), then end your reply with EXACTLY one line: DECISION: KEEP or DECISION: PASS.',
    );
    expect(prompt).toContain('60 balls will be drawn');
    expect(prompt).toContain('You may keep at most 3 balls in total.');
  });

  it("keep the paper's R2 code requirement verbatim", () => {
    expect(systemPrompt({ ...base, rung: 'R2' })).toContain(
      'You must provide `code`: a real, correct Python function `def solve(inputs: dict) -> float` that solves problems of this type—it stands in for every future problem of the same type for the rest of the session, so it should actually work, not just handle the problem currently shown.',
    );
  });

  it('tell R1 not to compute an answer and to call exactly one tool', () => {
    const prompt = systemPrompt({ ...base, rung: 'R1' });
    expect(prompt).toContain('you must call exactly one of claim_solver or skip_solver');
    expect(prompt).toContain(
      'Do not compute an answer to the problem: you will not solve any problem yourself, and an answer you work out earns nothing.',
    );
    expect(prompt).toContain('Exactly 8 types occur');
    expect(prompt).not.toContain('Python');
  });

  it('switch the probe to the keep/pass tools', () => {
    const prompt = systemPrompt({ ...base, rung: 'probe' });
    expect(prompt).toContain('call exactly one of the tools keep or pass');
    expect(prompt).not.toContain('DECISION:');
  });

  it('withhold N when it is not announced', () => {
    expect(systemPrompt({ ...base, announceN: false })).not.toContain('exactly 8');
    expect(systemPrompt({ ...base, rung: 'R1', announceN: false })).not.toMatch(/\b8\b/);
  });

  it('state the charge rule in every economic cell, K = 0 included, and nowhere else', () => {
    expect(systemPrompt(base)).not.toContain('costs');
    const economic = { ...base, economic: true };
    expect(systemPrompt({ ...economic, charge: 0 })).toContain(
      'Each keep costs 0 points, charged once when you keep; every collected ball is still worth one point, and passing costs nothing.',
    );
    expect(systemPrompt({ ...economic, charge: 10 })).toContain('Each keep costs 10 points, charged once when you keep');
    expect(systemPrompt({ ...economic, rung: 'R2', charge: 24 })).toContain('Each claim costs 24 points, charged once when you claim');
    expect(systemPrompt({ ...economic, rung: 'R2', charge: 0 })).toContain('Each claim costs 0 points');
  });

  it('give R0 its goal and final decisions, and tell the probe that the call is the decision', () => {
    expect(systemPrompt(base)).toContain('your goal is to collect as many balls as possible');
    expect(systemPrompt(base)).toContain('they are final');
    expect(systemPrompt({ ...base, rung: 'probe' })).toContain('The call is your decision: no DECISION line is needed.');
  });

  it.each(RESKINS)('render the %s reskin in its own vocabulary', (reskin) => {
    const v = VOCABULARIES[reskin];
    const prompt = systemPrompt({ ...base, reskin });
    expect(prompt).toContain(`There are exactly 8 distinct ${v.attributes} in the ${v.container}`);
    expect(prompt).toContain(`60 ${v.items} will be drawn`);
    if (reskin !== 'ball') expect(prompt).not.toMatch(/\b(ball|color|bag)s?\b/);
  });
});

describe('R3 prompts', () => {
  it('state the write budget, the class binding, optional scripts, the score, recurrence, N and the token budget', () => {
    const prompt = systemPrompt({ ...base, rung: 'R3', tokenCap: 300_000 });
    expect(prompt).toContain('at most 3 times in the whole session');
    expect(prompt).toContain('refuses it on any other');
    expect(prompt).toContain('Scripts are optional. Nothing in the scoring favours using them or not using them.');
    expect(prompt).toContain('Your score is the fraction of problems you answer correctly');
    expect(prompt).toContain('Some types come back many times; others appear only once.');
    expect(prompt).toContain('a budget of 300,000 tokens');
    expect(prompt).toContain('tokens_remaining');
    expect(prompt).toContain('`function solve(inputs)`');
    expect(prompt).toContain('Exactly 8 types occur');
    expect(prompt).not.toContain('Python');
    expect(prompt).not.toContain('costs');
    expect(systemPrompt({ ...base, rung: 'R3', charge: 5, economic: true })).toContain(
      'Each script written costs 5 points, charged once when you write it',
    );
  });
});

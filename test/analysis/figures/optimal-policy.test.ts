import { describe, expect, it } from 'vitest';
import { optimalPolicySpec, renderFigure, type OptimalPolicyInput, type PolicyAction } from '../../../analysis/figures/index.js';
import { expectWellRendered, markItems } from './inspect.js';

/*
 * Hand-built: A B A C A D B A B E C A B A B with A, B, C hot and D, E traps. The
 * optimum passes each first sight, builds A, B and C on their second, collects
 * the rest for free and never builds a trap: 3 builds, 7 collected, 5 passes.
 */
const sequence: [string, PolicyAction][] = [
  ['A', 'pass'],
  ['B', 'pass'],
  ['A', 'build'],
  ['C', 'pass'],
  ['A', 'collected'],
  ['D', 'pass'],
  ['B', 'build'],
  ['A', 'collected'],
  ['B', 'collected'],
  ['E', 'pass'],
  ['C', 'build'],
  ['A', 'collected'],
  ['B', 'collected'],
  ['A', 'collected'],
  ['B', 'collected'],
];
const input: OptimalPolicyInput = {
  items: sequence.map(([label, action]) => ({ label, action })),
  roles: { A: 'hot', B: 'hot', C: 'hot', D: 'trap', E: 'trap' },
};
const render = () => renderFigure(optimalPolicySpec(input));

describe('optimal policy figure', () => {
  it('draws a circle per item, rings the builds and names each action', async () => {
    const figure = await render();
    const circles = markItems(figure.svg, 'symbol', 'layer_0_marks');
    expect(circles).toHaveLength(15);
    expect(circles.filter((c) => c.includes('opacity="0.3"'))).toHaveLength(5);
    expect(markItems(figure.svg, 'symbol', 'layer_1_marks')).toHaveLength(3);
    const actions = markItems(figure.svg, 'text', 'layer_3_marks').map((t) => t.replace(/<[^>]*>/g, ''));
    expect(actions.filter((a) => a === 'build')).toHaveLength(3);
    expect(actions.filter((a) => a === 'free')).toHaveLength(7);
    expect(actions.filter((a) => a === 'pass')).toHaveLength(5);
    // Colours follow first appearance: A gets the palette's first, E its fifth.
    expect(circles[0]).toContain('fill="#4c78a8"');
    expect(circles[9]).toContain('fill="#54a24b"');
    for (const text of ['Stream position', 'Class (role)', 'A (hot)', 'D (trap)', 'E (trap)'])
      expect(figure.svg).toContain(`>${text}</text>`);
    await expectWellRendered(figure, render);
  });

  it('refuses a label without a role and an impossible play', () => {
    expect(() => optimalPolicySpec({ ...input, roles: { A: 'hot' } })).toThrow(/no role for class B/);
    expect(() => optimalPolicySpec({ ...input, items: [{ label: 'A', action: 'collected' }] })).toThrow(/collects unbuilt A/);
    const twice = [
      { label: 'A', action: 'build' },
      { label: 'A', action: 'build' },
    ] as const;
    expect(() => optimalPolicySpec({ ...input, items: twice })).toThrow(/builds A again/);
    const passBuilt = [
      { label: 'A', action: 'build' },
      { label: 'A', action: 'pass' },
    ] as const;
    expect(() => optimalPolicySpec({ ...input, items: passBuilt })).toThrow(/passes built A/);
  });
});

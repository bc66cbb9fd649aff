import type { TopLevelSpec } from 'vega-lite';
import { CONFIG, categoryScale } from './theme.js';

/** What the defer-then-confirm optimum does with an item. */
export type PolicyAction = 'pass' | 'build' | 'collected';

export interface OptimalPolicyInput {
  /**
   * The stream's first items in order (the paper shows 15 of seed 2000's 60): each
   * item's class label, short ones named by first appearance (A, B, ...), and the
   * optimum's action on it.
   */
  readonly items: readonly { readonly label: string; readonly action: PolicyAction }[];
  /** Role of every label in items. */
  readonly roles: Readonly<Record<string, 'hot' | 'trap'>>;
}

const ACTION_TEXT: Record<PolicyAction, string> = { pass: 'pass', build: 'build', collected: 'free' };

/**
 * Figure 1 (fig:optimal-policy): one circle per item coloured by class, built
 * items ringed, passed items faded; the word under each circle says what the
 * optimum did. The legend gives each class's role, so traps show as never built.
 */
export function optimalPolicySpec(input: OptimalPolicyInput): TopLevelSpec {
  const classes = classesInOrder(input);
  const values = input.items.map(({ label, action }, i) => ({
    position: i + 1,
    label,
    action,
    actionText: ACTION_TEXT[action],
    class: classes.get(label) as string,
  }));
  const x = { field: 'position', type: 'ordinal', title: 'Stream position', axis: { labelAngle: 0, domain: false, ticks: false } } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    width: { step: 40 },
    height: 74,
    data: { values },
    encoding: { x },
    layer: [
      {
        mark: { type: 'point', shape: 'circle', filled: true, size: 640, yOffset: -8 },
        encoding: {
          color: { field: 'class', type: 'nominal', scale: categoryScale([...classes.values()]), title: 'Class (role)' },
          opacity: { condition: { test: "datum.action === 'pass'", value: 0.3 }, value: 1 },
        },
      },
      {
        transform: [{ filter: "datum.action === 'build'" }],
        mark: { type: 'point', shape: 'circle', filled: false, size: 1100, yOffset: -8, stroke: '#111', strokeWidth: 2.5, opacity: 1 },
      },
      {
        mark: { type: 'text', fontSize: 11, fontWeight: 'bold', color: 'white', yOffset: -8 },
        encoding: { text: { field: 'label' } },
      },
      {
        mark: { type: 'text', fontSize: 11, yOffset: 26 },
        encoding: {
          text: { field: 'actionText' },
          color: { condition: { test: "datum.action === 'pass'", value: '#888' }, value: '#111' },
        },
      },
    ],
  };
}

/** Legend entry per label ("A (hot)"), in order of first appearance; checks the actions are a valid play. */
function classesInOrder({ items, roles }: OptimalPolicyInput): Map<string, string> {
  const classes = new Map<string, string>();
  const built = new Set<string>();
  for (const [i, { label, action }] of items.entries()) {
    const role = roles[label];
    if (role === undefined) throw new Error(`optimal policy figure: no role for class ${label}`);
    if (!classes.has(label)) classes.set(label, `${label} (${role})`);
    if (action === 'build' && built.has(label)) throw new Error(`optimal policy figure: item ${i + 1} builds ${label} again`);
    if (action === 'collected' && !built.has(label)) throw new Error(`optimal policy figure: item ${i + 1} collects unbuilt ${label}`);
    if (action === 'pass' && built.has(label)) throw new Error(`optimal policy figure: item ${i + 1} passes built ${label}`);
    if (action === 'build') built.add(label);
  }
  return classes;
}

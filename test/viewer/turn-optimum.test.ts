import { describe, expect, it } from 'vitest';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { optimalPolicy } from '../../core/policies/optimal.js';
import { commitAtK } from '../../core/policies/commit-at-k.js';
import { runSession } from '../../core/session/run-session.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { parseStreamConfig } from '../../core/stream/stream-config.js';
import { turnOptima } from '../../viewer/turn-optimum.js';

const stream = parseStreamConfig({ length: 14 });
const classes = generateStream(2003, stream).items.map((item) => FAMILY_NAMES.indexOf(item.family));
const setting = { budget: 3, charge: 0, announceN: true, stream };
const rules = { budget: 3, charge: 0, classCount: FAMILY_NAMES.length };

describe('policy/optimal beside each decision turn', () => {
  it("costs policy/optimal's own decisions nothing at any turn", () => {
    const record = runSession(classes, rules, optimalPolicy());
    const turns = turnOptima(classes, setting, record.decisions);
    expect(turns.map((turn) => turn.t)).toEqual(record.decisions.map((d) => d.t));
    expect(turns.every((turn) => turn.optimum === turn.action && turn.regret === 0)).toBe(true);
  });

  it('charges a decision the difference between the two values where it differs from the optimum', () => {
    const record = runSession(classes, rules, commitAtK(1));
    const turns = turnOptima(classes, setting, record.decisions);
    const differing = turns.filter((turn) => turn.action !== turn.optimum);
    expect(differing.length).toBeGreaterThan(0);
    for (const turn of differing) expect(turn.regret).toBeCloseTo(Math.abs((turn.build as number) - turn.pass), 12);
    for (const turn of turns.filter((t) => t.action === t.optimum)) expect(turn.regret).toBe(0);
  });

  it('stops at the first turn a session never reached', () => {
    const decisions = runSession(classes, rules, commitAtK(2)).decisions.map((d, i) =>
      i >= 2 ? { ...d, action: 'pass' as const, resolved: false, failure: 'truncated' as const } : d,
    );
    expect(turnOptima(classes, setting, decisions)).toHaveLength(2);
  });
});

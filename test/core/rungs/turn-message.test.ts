import { describe, expect, it } from 'vitest';
import type { Framing } from '../../../core/rungs/framing.js';
import { turnMessage } from '../../../core/rungs/turn-message.js';
import { RESKINS, VOCABULARIES } from '../../../core/rungs/vocabulary.js';
import { nextDecisionPoint, type Decided } from '../../../core/session/replay.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { DEFAULT_STREAM_CONFIG } from '../../../core/stream/stream-config.js';
import { classSequence } from '../../../core/stream/stream.js';

/*
 * Seed 2000's stream; the decisions commit at the second occurrence, so later
 * turns follow draws that were collected automatically.
 */
const stream = generateStream(2000, DEFAULT_STREAM_CONFIG);
const classes = classSequence(stream);
const setting = { budget: 3, charge: 0, classCount: 8 };
const framing: Framing = { rung: 'R0', horizon: 60, budget: 3, charge: 0, economic: false, classCount: 8, announceN: true, reskin: 'ball' };

/** The turn after the first commitment with automatic credits since, and the decisions that lead to it. */
function afterAutoCredits() {
  const decided: Decided[] = [];
  const seen = new Map<number, number>();
  for (let point = nextDecisionPoint(classes, setting, decided); point; point = nextDecisionPoint(classes, setting, decided)) {
    if (point.autoCredited.length > 0) return point;
    const count = (seen.get(point.classId) ?? 0) + 1;
    seen.set(point.classId, count);
    decided.push({ action: count === 2 ? 'commit' : 'pass' });
  }
  throw new Error('no turn after automatic credits');
}

describe('decision-turn messages', () => {
  const point = afterAutoCredits();
  const item = stream.items[point.t - 1] as (typeof stream.items)[number];

  it('R0: the draws collected since the last decision (+1 each), the draw out of T, the colour, keeps left, and KEEP or PASS — no echo of the last decision, no list of what is kept', () => {
    const message = turnMessage(framing, point, item);
    for (const credit of point.autoCredited) expect(message).toContain(`Draw ${credit.t}: `);
    expect(message.match(/\(\+1\)/g)).toHaveLength(point.autoCredited.length);
    expect(message).toMatch(
      new RegExp(`Draw ${point.t} of 60: an? \\w+ ball\\. Keeps left: ${point.observation.remaining}\\. KEEP or PASS\\?$`),
    );
    expect(message).not.toMatch(/You kept|You passed|Kept so far|Nothing kept/);
  });

  it('probe: the same, ending by asking for one of the two calls', () => {
    expect(turnMessage({ ...framing, rung: 'probe' }, point, item)).toMatch(/Decide by calling the keep tool or the pass tool\.$/);
  });

  it.each(RESKINS)('%s: re-voiced throughout', (reskin) => {
    const v = VOCABULARIES[reskin];
    const message = turnMessage({ ...framing, reskin }, point, item);
    expect(message).toContain(` ${v.item}`);
    if (reskin !== 'ball') expect(message).not.toMatch(/\bballs?\b|\bcolou?rs?\b/);
  });

  it('R1: the problem, next to it the reminder to decide only, and the claim/skip request', () => {
    const message = turnMessage({ ...framing, rung: 'R1' }, point, item);
    expect(message).toContain(item.text);
    expect(message).toContain(`Problem ${point.t} of 60 (only decide whether to claim a solver for its type; do not work out the answer)`);
    expect(message).toMatch(/Call claim_solver or skip_solver\.$/);
    expect(message).toMatch(/solved automatically \(\+1 each\)/);
  });

  it('R2: the question text only (no inputs object) and the reminder that solving logic goes in the code argument', () => {
    const message = turnMessage({ ...framing, rung: 'R2' }, point, item);
    expect(message).toContain(item.text);
    expect(message).not.toContain(JSON.stringify(item.inputs));
    expect(message).not.toMatch(/inputs/i);
    expect(message).toContain('with all the solving logic in its code argument and none in your message');
  });
});

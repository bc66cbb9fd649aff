import { describe, expect, it } from 'vitest';
import type { AttemptRecord, TranscriptRecord, TurnRecord } from '../../run-store/transcript.js';
import { conversationOf, retried } from '../../viewer/session-conversation.js';

const usage = { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 };
const attempt = (t: number, n: number, outcome: AttemptRecord['outcome'], activityAttempt = n): AttemptRecord => ({
  type: 'attempt',
  at: `2026-01-01T00:00:0${n}.000Z`,
  t,
  attempt: n,
  activityAttempt,
  latencyMs: 5,
  outcome,
  usage,
  usageEstimated: true,
});
const turn = (t: number): TurnRecord => ({
  type: 'turn',
  at: '2026-01-01T00:00:09.000Z',
  t,
  user: `item ${t}`,
  reply: { text: 'DECISION: PASS', toolCalls: [] },
  toolResults: [],
  decision: { t, classId: 1, occurrence: 1, action: 'pass', resolved: true },
  usage,
  responseModel: 'm',
});

describe('a transcript as a conversation', () => {
  it("puts every attempt in its turn, keeps a failed run's attempts in place before the replacement run, and leaves a turn in flight open", () => {
    const records: TranscriptRecord[] = [
      attempt(1, 1, 'ok'),
      turn(1),
      attempt(2, 1, 'transport-error'),
      attempt(2, 2, 'transport-error'),
      attempt(2, 3, 'transport-error'),
      { type: 'end', at: 'x', termination: 'transport-exhausted' },
      { type: 'resume', at: 'y', after: 'transport-exhausted' },
      attempt(2, 1, 'transport-error'),
      attempt(2, 2, 'ok', 3),
      turn(2),
      attempt(3, 1, 'ok'),
    ];
    const { entries } = conversationOf(records, false);
    expect(entries.map((e) => e.kind)).toEqual(['turn', 'open', 'end', 'resume', 'turn', 'open']);
    const [first, failed, , , second, inFlight] = entries;
    expect(first && 'attempts' in first && first.attempts).toHaveLength(1);
    expect(failed && 'attempts' in failed && failed.attempts.map((a) => a.outcome)).toEqual(Array(3).fill('transport-error'));
    expect(second && 'attempts' in second && second.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    // Activity attempt 3 recorded provider attempt 2: one activity attempt left no record (a dead worker).
    expect(second && 'lost' in second && second.lost).toBe(1);
    expect(second && retried(second)).toBe(true);
    expect(first && retried(first)).toBe(false);
    expect(inFlight?.kind === 'open' && inFlight.t).toBe(3);
  });
});

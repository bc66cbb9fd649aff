import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  DEFAULT_MAX_RETRY_AFTER_SECONDS,
  MAX_THROTTLED_RETRIES,
  replyOnRecord,
  retryWait,
} from '../../activities/provider-call.js';
import type { AttemptRecord } from '../../run-store/transcript.js';

const attempt = (fields: Partial<AttemptRecord>): AttemptRecord => ({
  type: 'attempt',
  at: '2026-01-01T00:00:00.000Z',
  t: 3,
  attempt: 1,
  activityAttempt: 1,
  latencyMs: 10,
  outcome: 'ok',
  usage: { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 },
  usageEstimated: false,
  ...fields,
});

describe('retryWait', () => {
  it("waits the rerun rule's 1.5 s × failures, or a longer retry-after up to the cap (60 s unless set)", () => {
    expect(DEFAULT_MAX_RETRY_AFTER_SECONDS).toBe(60);
    expect(retryWait(1, undefined)).toEqual({ waitMs: 1500, capped: false });
    expect(retryWait(2, 1000)).toEqual({ waitMs: 3000, capped: false });
    expect(retryWait(1, 20_000)).toEqual({ waitMs: 20_000, capped: false });
    expect(retryWait(1, 7_200_000)).toEqual({ waitMs: 60_000, capped: true });
    expect(retryWait(1, 7_200_000, 5)).toEqual({ waitMs: 5000, capped: true });
    // The rule's own step is never shortened by a small cap.
    expect(retryWait(2, 7_200_000, 1)).toEqual({ waitMs: 3000, capped: true });
  });
});

describe('replyOnRecord', () => {
  const reply = { text: 'DECISION: KEEP', toolCalls: [] };
  it("finds the turn's standing reply: the last attempt, whole, with its reply", () => {
    const ok = attempt({ reply, responseModel: 'm', stopReason: 'end' });
    expect(replyOnRecord([ok])).toBe(ok);
    expect(replyOnRecord([attempt({ outcome: 'transport-error' }), ok])).toBe(ok);
  });
  it('finds none after a failed or dropped attempt, or in records written before replies were kept', () => {
    expect(replyOnRecord([])).toBeUndefined();
    expect(replyOnRecord([attempt({ responseModel: 'm' })])).toBeUndefined();
    expect(replyOnRecord([attempt({ outcome: 'empty-reply', reply, responseModel: 'm' })])).toBeUndefined();
    expect(replyOnRecord([attempt({ reply, responseModel: 'm' }), attempt({ outcome: 'transport-error' })])).toBeUndefined();
  });
});

describe('afterFailure', () => {
  const transportError = attempt({ outcome: 'transport-error' });
  const throttledReply = attempt({ outcome: 'transport-error', throttled: true });
  const limited = { errorClass: 'transport', throttled: '429' } as const;

  it('retries a transport error until the third, 1.5 s × its number later, and never a permanent one', () => {
    expect(afterFailure([], { errorClass: 'transport' }, true)).toEqual({ retried: true, throttled: false, waitMs: 1500, capped: false });
    expect(afterFailure([transportError], { errorClass: 'transport' }, true)).toMatchObject({ retried: true, waitMs: 3000 });
    expect(afterFailure([transportError, transportError], { errorClass: 'transport' }, true).retried).toBe(false);
    expect(afterFailure([], { errorClass: 'permanent' }, true).retried).toBe(false);
  });

  it('under an adaptive limit, retries throttled replies apart from the three, each wait stepping by their own count', () => {
    const twoThrottled = [throttledReply, throttledReply];
    expect(afterFailure([transportError, transportError, ...twoThrottled], limited, true)).toEqual({
      retried: true,
      throttled: true,
      waitMs: 4500,
      capped: false,
    });
    // Throttled replies before do not count toward an ordinary error's three.
    expect(afterFailure([...twoThrottled, transportError], { errorClass: 'transport' }, true)).toMatchObject({
      retried: true,
      waitMs: 3000,
    });
    // A provider's longer retry-after is honoured as for any transport error.
    expect(afterFailure([], { ...limited, retryAfterMs: 20_000 }, true, 5)).toMatchObject({ waitMs: 5000, capped: true });
  });

  it('counts a throttled reply as any transport error past MAX_THROTTLED_RETRIES, or without an adaptive limit', () => {
    const many = Array.from({ length: MAX_THROTTLED_RETRIES }, () => throttledReply);
    expect(afterFailure(many, limited, true)).toMatchObject({ retried: true, throttled: false, waitMs: 1500 });
    expect(afterFailure([...many, transportError, transportError], limited, true).retried).toBe(false);
    expect(afterFailure([transportError, transportError], limited, false)).toMatchObject({ retried: false, throttled: false });
  });

  it('counts a replayed error as throttled where the recorded run did, whatever the replay’s own limit', () => {
    const threeThrottled = [throttledReply, throttledReply, throttledReply];
    const replayed = { errorClass: 'transport', replayedFrom: '/runs/recorded' } as const;
    expect(afterFailure(threeThrottled, { ...replayed, throttled: 'recorded' }, false)).toMatchObject({ retried: true, throttled: true });
    expect(afterFailure([transportError, transportError], replayed, true)).toMatchObject({ retried: false, throttled: false });
  });
});

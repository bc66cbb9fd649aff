import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallLimiter } from '../../../activities/providers/call-limits.js';

afterEach(() => vi.useRealTimers());

/** A call that records when it starts and ends, and finishes when released. */
function controlledCalls(limiter: CallLimiter, count: number) {
  let running = 0;
  let mostAtOnce = 0;
  const started: number[] = [];
  const release: (() => void)[] = [];
  const done = Array.from({ length: count }, (_, i) =>
    limiter.run(async () => {
      started.push(i);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await new Promise<void>((resolve) => (release[i] = resolve));
      running--;
      return i;
    }),
  );
  return { started, release, done, mostAtOnce: () => mostAtOnce };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CallLimiter', () => {
  it('never runs more than its concurrency at once, and starts waiting calls first come, first served', async () => {
    const limiter = new CallLimiter({ concurrency: 2 });
    const calls = controlledCalls(limiter, 5);
    await settle();
    expect(calls.started).toEqual([0, 1]);
    calls.release[1]?.();
    await settle();
    expect(calls.started).toEqual([0, 1, 2]);
    calls.release[0]?.();
    await settle();
    expect(calls.started).toEqual([0, 1, 2, 3]);
    for (const i of [2, 3]) calls.release[i]?.();
    await settle();
    calls.release[4]?.();
    expect(await Promise.all(calls.done)).toEqual([0, 1, 2, 3, 4]);
    expect(calls.mostAtOnce()).toBe(2);
  });

  it('frees the slot of a call that fails', async () => {
    const limiter = new CallLimiter({ concurrency: 1 });
    await expect(limiter.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await limiter.run(() => Promise.resolve('next'))).toBe('next');
  });

  it('starts calls at least 1/perSecond apart', async () => {
    vi.useFakeTimers({ now: 0 });
    const limiter = new CallLimiter({ concurrency: 10, perSecond: 4 });
    const startedAt: number[] = [];
    const done = Array.from({ length: 4 }, () => limiter.run(() => Promise.resolve(startedAt.push(Date.now()))));
    await vi.runAllTimersAsync();
    await Promise.all(done);
    expect(startedAt).toEqual([0, 250, 500, 750]);
  });
});

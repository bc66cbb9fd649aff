import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdaptiveState } from '../../../activities/providers/adaptive-concurrency.js';
import { CallLimiter, type CallObserver } from '../../../activities/providers/call-limits.js';

afterEach(() => vi.useRealTimers());

/** A call that records when it starts and ends, and finishes when released. */
function controlledCalls(limiter: CallLimiter, count: number, observer?: CallObserver) {
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
    }, observer),
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

  describe('adaptive', () => {
    /** Throttled: an error whose message is a status the observer reads as load. */
    const observer = (changes: AdaptiveState[]): CallObserver => ({
      throttled: (error) => (error instanceof Error && /^(429|529)$/.test(error.message) ? error.message : undefined),
      changed: async (state) => void changes.push(state),
    });
    const refuse = (status: string) => () => Promise.reject(new Error(status));

    it('halves the calls at once on a throttled reply, holding waiting calls back until fewer run, and tells the observer', async () => {
      const changes: AdaptiveState[] = [];
      const limiter = new CallLimiter({ concurrency: 4, adaptive: true });
      const first = controlledCalls(limiter, 3);
      await settle();
      await expect(limiter.run(refuse('429'), observer(changes))).rejects.toThrow('429');
      expect(limiter.concurrency).toBe(2);
      expect(changes.map((c) => [c.recent.at(-1)?.from, c.limit, c.cuts])).toEqual([[4, 2, 1]]);
      // Three still run, over the limit of two: one ending frees no slot (its answer raises the limit to 2.5).
      const later = controlledCalls(limiter, 2);
      await settle();
      first.release[0]?.();
      await settle();
      expect(later.started).toEqual([]);
      // The second answer raises it to 3 with one running: both waiting calls start.
      first.release[1]?.();
      await settle();
      expect([limiter.concurrency, later.started]).toEqual([3, [0, 1]]);
      first.release[2]?.();
      later.release.forEach((release) => release());
      await Promise.all([...first.done, ...later.done]);
    });

    it('recovers one call at once per round of answered calls while calls wait, admitting several when it rises', async () => {
      const changes: AdaptiveState[] = [];
      const limiter = new CallLimiter({ concurrency: 4, adaptive: true });
      await expect(limiter.run(refuse('429'), observer(changes))).rejects.toThrow();
      await expect(limiter.run(refuse('529'), observer(changes))).rejects.toThrow();
      expect(limiter.concurrency).toBe(1);
      // Nobody waits: answers leave the limit as it is.
      await limiter.run(() => Promise.resolve('ok'), observer(changes));
      expect(limiter.concurrency).toBe(1);
      // Five calls against a limit of 1: the first answer lifts it to 2, and the next two answers to 3, the third
      // admitting two waiting calls at once.
      const calls = controlledCalls(limiter, 5, observer(changes));
      await settle();
      expect(calls.started).toEqual([0]);
      calls.release[0]?.();
      await settle();
      expect([limiter.concurrency, calls.started]).toEqual([2, [0, 1, 2]]);
      calls.release[1]?.();
      await settle();
      expect(calls.started).toEqual([0, 1, 2, 3]);
      calls.release[2]?.();
      await settle();
      expect([limiter.concurrency, calls.started]).toEqual([3, [0, 1, 2, 3, 4]]);
      expect(changes.map((c) => c.recent.at(-1)?.cause)).toEqual(['429', '529', 'recovered', 'recovered']);
      calls.release.forEach((release) => release());
      await Promise.all(calls.done);
    });

    it('is not moved by other failures, and not at all without `adaptive`', async () => {
      const changes: AdaptiveState[] = [];
      const adaptive = new CallLimiter({ concurrency: 4, adaptive: true });
      await expect(adaptive.run(refuse('500'), observer(changes))).rejects.toThrow();
      const fixed = new CallLimiter({ concurrency: 4 });
      await expect(fixed.run(refuse('429'), observer(changes))).rejects.toThrow();
      expect([adaptive.concurrency, fixed.concurrency, fixed.adaptive, changes.length]).toEqual([4, 4, false, 0]);
    });
  });
});

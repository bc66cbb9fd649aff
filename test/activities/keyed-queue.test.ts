import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../activities/keyed-queue.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A task that logs its start and end, and ends when released. */
function task(log: string[], name: string) {
  let release: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (release = resolve));
  return {
    release: () => release(),
    run: async () => {
      log.push(`${name} starts`);
      await ended;
      log.push(`${name} ends`);
      if (name.startsWith('fail')) throw new Error(name);
      return name;
    },
  };
}

describe('KeyedQueue', () => {
  it('runs one task per key at a time, in order, while other keys run alongside', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const [a1, a2, b1] = [task(log, 'a1'), task(log, 'a2'), task(log, 'b1')];
    const done = [queue.run('a', a1.run), queue.run('a', a2.run), queue.run('b', b1.run)];
    await settle();
    expect(log).toEqual(['a1 starts', 'b1 starts']);
    a2.release();
    await settle();
    expect(log).toEqual(['a1 starts', 'b1 starts']);
    a1.release();
    b1.release();
    expect(await Promise.all(done)).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a2 starts')).toBeGreaterThan(log.indexOf('a1 ends'));
    expect(queue.size).toBe(0);
  });

  it('runs the next task of a key after one that failed', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const [failing, next] = [task(log, 'fail'), task(log, 'next')];
    const first = queue.run('a', failing.run);
    const second = queue.run('a', next.run);
    failing.release();
    next.release();
    await expect(first).rejects.toThrow('fail');
    expect(await second).toBe('next');
    expect(queue.size).toBe(0);
  });
});

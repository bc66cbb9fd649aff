/**
 * Runs tasks one at a time per key, in the order they arrive; tasks of
 * different keys run concurrently. A failed task does not stop the next.
 */
export class KeyedQueue {
  private readonly latest = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.latest.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
    this.latest.set(key, next);
    const forget = () => {
      if (this.latest.get(key) === next) this.latest.delete(key);
    };
    next.then(forget, forget);
    return next;
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.latest.size;
  }
}

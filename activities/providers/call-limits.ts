/** How many calls one worker makes to a provider at once, and how often it may start one. */
export interface CallLimit {
  readonly concurrency: number;
  /** Calls started per second by this worker; unset: no limit. */
  readonly perSecond?: number;
}

/**
 * One worker's limit on its calls to one provider: at most `concurrency` at
 * once, started at least 1/`perSecond` apart, waiting callers served first
 * come, first served. Model calls that run with their sessions (local
 * activities) have no task queue for the server to limit, so the worker does.
 */
export class CallLimiter {
  private running = 0;
  private nextStartMs = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: CallLimit) {}

  async run<T>(call: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await call();
    } finally {
      // The slot passes straight to the longest waiter, so no newcomer can take it in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private async acquire(): Promise<void> {
    if (this.running < this.limit.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (!this.limit.perSecond) return;
    const now = Date.now();
    const start = Math.max(now, this.nextStartMs);
    this.nextStartMs = start + 1000 / this.limit.perSecond;
    const wait = start - now;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

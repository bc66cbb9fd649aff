import { AimdController, DEFAULT_DECREASE, type AdaptiveState } from './adaptive-concurrency.js';

/** How many calls one worker makes to a provider at once, and how often it may start one. */
export interface CallLimit {
  /** The most calls at once; with `adaptive`, the ceiling the limit adapts under. */
  readonly concurrency: number;
  /** Calls started per second by this worker; unset: no limit. */
  readonly perSecond?: number;
  /** Adapt the calls at once to the provider's throttling (adaptive-concurrency.ts), between 1 and `concurrency`. */
  readonly adaptive?: boolean;
}

/** What the limiter learns from a call's outcome, and whom it tells when its adaptive limit moves. */
export interface CallObserver {
  /** Why the provider refused the call for load ('429', '529', '503 overloaded'), or undefined for any other failure. */
  throttled(error: unknown): string | undefined;
  /** Told, before the call's outcome is returned, each time the adaptive limit moves; never throws. */
  changed(state: AdaptiveState): Promise<void>;
}

/**
 * One worker's limit on its calls to one provider: at most `concurrency` at
 * once (or the adaptive limit under it), started at least 1/`perSecond`
 * apart, waiting callers served first come, first served. Model calls that
 * run with their sessions (local activities) have no task queue for the
 * server to limit, so the worker does.
 */
export class CallLimiter {
  private running = 0;
  private nextStartMs = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly controller?: AimdController;

  constructor(private readonly limit: CallLimit) {
    if (limit.adaptive) this.controller = new AimdController({ floor: 1, ceiling: limit.concurrency, decrease: DEFAULT_DECREASE });
  }

  /** Whether the limit adapts to throttled replies. */
  get adaptive(): boolean {
    return this.controller !== undefined;
  }

  /** Calls allowed at once now. */
  get concurrency(): number {
    return this.controller?.limit ?? this.limit.concurrency;
  }

  async run<T>(call: () => Promise<T>, observer?: CallObserver): Promise<T> {
    await this.acquire();
    const epoch = this.controller?.started() ?? 0;
    let moved = false;
    try {
      const result = await call();
      moved = this.controller?.answered(Date.now(), this.waiting.length > 0) !== undefined;
      return result;
    } catch (error) {
      const cause = this.controller && observer?.throttled(error);
      if (cause) moved = this.controller?.throttled(epoch, cause, Date.now()) !== undefined;
      throw error;
    } finally {
      this.running--;
      this.admit();
      if (moved && this.controller) await observer?.changed(this.controller.state());
    }
  }

  /** Waiting callers take the free slots in order; a raised limit admits several. */
  private admit(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()?.();
    }
  }

  private async acquire(): Promise<void> {
    // A newcomer queues behind anyone waiting, so no one is passed over when a slot frees.
    if (this.waiting.length === 0 && this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (!this.limit.perSecond) return;
    const now = Date.now();
    const start = Math.max(now, this.nextStartMs);
    this.nextStartMs = start + 1000 / this.limit.perSecond;
    const wait = start - now;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** How far a throttled reply cuts the limit: halved, as TCP's congestion window is. */
export const DEFAULT_DECREASE = 0.5;
/** Changes kept for the record `allocbench status` reads. */
const RECENT_CHANGES = 8;

export interface AimdSettings {
  /** The fewest calls at once the limit falls to. */
  readonly floor: number;
  /** The most: the configured concurrency, where the limit starts. */
  readonly ceiling: number;
  /** A throttled reply multiplies the limit by this (0 < decrease < 1). */
  readonly decrease: number;
}

/** One change of the whole-call limit. */
export interface ConcurrencyChange {
  readonly atMs: number;
  readonly from: number;
  readonly to: number;
  /** A throttled reply's cause ('429', '529', '503 overloaded'), or 'recovered' for an increase. */
  readonly cause: string;
}

/** The controller as the run store records it after a change. */
export interface AdaptiveState {
  readonly limit: number;
  readonly floor: number;
  readonly ceiling: number;
  /** Multiplicative cuts so far. */
  readonly cuts: number;
  /** Throttled replies so far, those that cut the limit and those that did not. */
  readonly throttled: number;
  /** The latest changes, oldest first. */
  readonly recent: readonly ConcurrencyChange[];
}

/**
 * Additive increase, multiplicative decrease of one provider's concurrent
 * calls, as TCP adapts its congestion window. Pure: the caller says when.
 *
 * A throttled reply (the provider refused the call for load) multiplies the
 * limit by `decrease`, down to the floor; each answered call adds 1/limit
 * while calls wait for a place, so the limit grows by one per round of
 * `limit` answered calls, up to the ceiling. A burst of calls sent under one limit cuts it once: a throttled
 * reply cuts only if no cut came after its call started (its epoch is the
 * current one), so the replies to calls already in flight when the provider
 * pushed back do not cut it again for the same overload.
 */
export class AimdController {
  private window: number;
  private epoch = 0;
  private cuts = 0;
  private throttledReplies = 0;
  private readonly recent: ConcurrencyChange[] = [];

  constructor(private readonly settings: AimdSettings) {
    const { floor, ceiling, decrease } = settings;
    if (!(floor >= 1 && ceiling >= floor && decrease > 0 && decrease < 1)) {
      throw new RangeError(`adaptive concurrency needs 1 <= floor <= ceiling and 0 < decrease < 1 (got ${floor}, ${ceiling}, ${decrease})`);
    }
    this.window = ceiling;
  }

  /** Calls allowed at once now (the window's whole part; the tolerance absorbs the sum of rounded fractions). */
  get limit(): number {
    return Math.floor(this.window + 1e-9);
  }

  /** The epoch a call starts in, to hand back with its outcome. */
  started(): number {
    return this.epoch;
  }

  /**
   * A call was answered: the limit grows by 1/limit while it holds calls
   * back (`callsWaiting`); a limit nobody waits on is not raised, or a lull
   * would lift it back to the ceiling. Returns the change when the whole-call
   * limit moved.
   */
  answered(atMs: number, callsWaiting: boolean): ConcurrencyChange | undefined {
    if (!callsWaiting) return undefined;
    const from = this.limit;
    this.window = Math.min(this.settings.ceiling, this.window + 1 / from);
    return this.note(from, 'recovered', atMs);
  }

  /** A call begun in `epoch` was throttled for `cause`. Returns the change when the whole-call limit moved. */
  throttled(epoch: number, cause: string, atMs: number): ConcurrencyChange | undefined {
    this.throttledReplies++;
    if (epoch !== this.epoch) return undefined;
    this.epoch++;
    this.cuts++;
    const from = this.limit;
    this.window = Math.max(this.settings.floor, this.window * this.settings.decrease);
    return this.note(from, cause, atMs);
  }

  state(): AdaptiveState {
    const { floor, ceiling } = this.settings;
    return { limit: this.limit, floor, ceiling, cuts: this.cuts, throttled: this.throttledReplies, recent: [...this.recent] };
  }

  private note(from: number, cause: string, atMs: number): ConcurrencyChange | undefined {
    if (this.limit === from) return undefined;
    const change = { atMs, from, to: this.limit, cause };
    this.recent.push(change);
    if (this.recent.length > RECENT_CHANGES) this.recent.shift();
    return change;
  }
}

/** How a session the keeper followed ended, as the sweep counts it: its summary's ending, or its workflow failed outright. */
export type SessionEnd = 'finished' | 'stopped' | 'mechanical-failure' | 'failed' | 'cancelled';

/** What a sweep's sessions came to while one keeper followed them. */
export interface SessionTally {
  /** Sessions that finished by the experiment's own rules. */
  readonly finished: number;
  /** Sessions stopped by a cost cap. */
  readonly stopped: number;
  readonly mechanicalFailures: number;
  /** Sessions whose workflow failed outright (a bug, not a benchmark outcome). */
  readonly failed: number;
  /** Sessions stopped by a cancel of the sweep. */
  readonly cancelled: number;
}

/** A ledger as it travels in a heartbeat: plain data. */
export interface LedgerState extends SessionTally {
  /** Sessions in the keeper's list. */
  readonly size: number;
  /** Positions in the list below this have been started. */
  readonly next: number;
  /** One bit per position below `next`, set once that session ended; hex, two digits per eight positions, lowest first. */
  readonly ended: string;
}

const hex = (byte: number) => byte.toString(16).padStart(2, '0');

/**
 * What a sweep's keeper has done with its list of sessions: how far into the
 * list it has started them, which of those have ended, and how. It travels in
 * the keeper's heartbeats, so a keeper run again (its worker died) goes on
 * from the last one: it follows the sessions started and not ended, and
 * starts the rest. A session that ended after the last heartbeat is found
 * again, closed, and counted once (activities/session-keeper.ts).
 */
export class SessionLedger {
  private readonly endedBits: Uint8Array;
  private tally: { -readonly [K in keyof SessionTally]: number };
  private nextPosition: number;

  private constructor(
    readonly size: number,
    state?: LedgerState,
  ) {
    this.endedBits = new Uint8Array(Math.ceil(size / 8));
    this.nextPosition = state?.next ?? 0;
    this.tally = {
      finished: state?.finished ?? 0,
      stopped: state?.stopped ?? 0,
      mechanicalFailures: state?.mechanicalFailures ?? 0,
      failed: state?.failed ?? 0,
      cancelled: state?.cancelled ?? 0,
    };
    for (let i = 0; state && i < state.ended.length / 2; i++) this.endedBits[i] = parseInt(state.ended.slice(2 * i, 2 * i + 2), 16);
  }

  /** A fresh ledger for `size` sessions, or the one a heartbeat carried for the same list (anything else is ignored). */
  static resume(size: number, details: unknown): SessionLedger {
    return new SessionLedger(size, isLedgerState(details, size) ? details : undefined);
  }

  get next(): number {
    return this.nextPosition;
  }

  /** The next position to start, if any is left; it counts as started from now on. */
  take(): number | undefined {
    return this.nextPosition < this.size ? this.nextPosition++ : undefined;
  }

  /** Positions started and not ended, lowest first. */
  inFlight(): number[] {
    return Array.from({ length: this.nextPosition }, (_, position) => position).filter((position) => !this.hasEnded(position));
  }

  hasEnded(position: number): boolean {
    return ((this.endedBits[position >> 3] ?? 0) & (1 << (position & 7))) !== 0;
  }

  /** Records how the session at `position` ended; a second report of the same one is ignored. */
  end(position: number, how: SessionEnd): void {
    if (this.hasEnded(position)) return;
    this.endedBits[position >> 3] = (this.endedBits[position >> 3] ?? 0) | (1 << (position & 7));
    if (how === 'finished') this.tally.finished++;
    if (how === 'stopped') this.tally.stopped++;
    if (how === 'mechanical-failure') this.tally.mechanicalFailures++;
    if (how === 'failed') this.tally.failed++;
    if (how === 'cancelled') this.tally.cancelled++;
  }

  counts(): SessionTally {
    return { ...this.tally };
  }

  state(): LedgerState {
    const used = Math.ceil(this.nextPosition / 8);
    return { ...this.tally, size: this.size, next: this.nextPosition, ended: Array.from(this.endedBits.subarray(0, used), hex).join('') };
  }
}

function isLedgerState(details: unknown, size: number): details is LedgerState {
  if (typeof details !== 'object' || details === null) return false;
  const state = details as Record<string, unknown>;
  const count = (key: string) => Number.isInteger(state[key]) && (state[key] as number) >= 0;
  return (
    ['next', 'finished', 'stopped', 'mechanicalFailures', 'failed', 'cancelled'].every(count) &&
    state.size === size &&
    (state.next as number) <= size &&
    typeof state.ended === 'string' &&
    /^([0-9a-f]{2})*$/.test(state.ended) &&
    state.ended.length === 2 * Math.ceil((state.next as number) / 8)
  );
}

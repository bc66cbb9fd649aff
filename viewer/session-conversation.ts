import type { SplitRole } from '../core/rungs/rung.js';
import {
  attemptKey,
  runKey,
  type AttemptRecord,
  type EndRecord,
  type ExecutionRecord,
  type LoopStepRecord,
  type MessageRecord,
  type ResumeRecord,
  type SessionStartRecord,
  type TranscriptRecord,
  type TurnRecord,
} from '../run-store/transcript.js';

/** A decision turn with every provider call it took. */
export interface TurnEntry {
  readonly kind: 'turn';
  readonly record: TurnRecord;
  readonly role?: SplitRole;
  readonly attempts: readonly AttemptRecord[];
  /** Activity attempts that left no record: a worker died mid-call. */
  readonly lost: number;
}

/** An R3 model call with every provider call it took and the runs of its scripts, by the run_script call's position. */
export interface CallEntry {
  readonly kind: 'call';
  readonly record: LoopStepRecord;
  readonly role?: SplitRole;
  readonly attempts: readonly AttemptRecord[];
  readonly lost: number;
  readonly executions: ReadonlyMap<number, ExecutionRecord>;
  /** How many times each run_script call's script was started (more than once after a lost sandbox worker). */
  readonly starts: ReadonlyMap<number, number>;
}

/** Provider calls of a turn or model call that has no completed record: in flight, or what a failed run left. */
export interface OpenEntry {
  readonly kind: 'open';
  /** The decision turn, or at R3 (and a split agent's builder) the model call. */
  readonly t: number;
  /** t is a model call, not a stream position. */
  readonly call: boolean;
  readonly role?: SplitRole;
  readonly attempts: readonly AttemptRecord[];
  readonly lost: number;
}

export type Entry =
  | TurnEntry
  | CallEntry
  | OpenEntry
  | { readonly kind: 'resume'; readonly record: ResumeRecord }
  | { readonly kind: 'message'; readonly record: MessageRecord }
  | { readonly kind: 'end'; readonly record: EndRecord };

/** A session's transcript as the viewer shows it: the opening (folded away), then one entry per turn, call or event, in order. */
export interface Conversation {
  readonly start?: SessionStartRecord;
  readonly entries: readonly Entry[];
}

const lostOf = (attempts: readonly AttemptRecord[]) =>
  attempts.length === 0 ? 0 : Math.max(0, Math.max(...attempts.map((a) => a.activityAttempt)) - attempts.length);

/**
 * Groups a transcript's records into entries: each completed turn or model
 * call takes the attempts filed under it since the last replacement run (a
 * split agent's planner turns under 'planner', its builder's calls under
 * 'builder'); attempts that no completed record took stay in place as an open
 * entry, before a replacement run or at the end. `loop`: the session is at
 * R3, where a single agent's attempts are filed by model call.
 */
export function conversationOf(records: readonly TranscriptRecord[], loop: boolean): Conversation {
  let start: SessionStartRecord | undefined;
  const entries: Entry[] = [];
  let pending = new Map<string, { t: number; role?: SplitRole; attempts: AttemptRecord[] }>();
  const executions = new Map<string, ExecutionRecord>();
  const starts = new Map<string, number>();
  const calls: { entry: CallEntry; executions: Map<number, ExecutionRecord>; starts: Map<number, number> }[] = [];
  const split = () => start?.planner !== undefined;
  const take = (t: number, role?: SplitRole) => {
    const key = attemptKey(t, role);
    const attempts = pending.get(key)?.attempts ?? [];
    pending.delete(key);
    return attempts;
  };
  const flushOpen = () => {
    for (const open of pending.values())
      entries.push({
        kind: 'open',
        t: open.t,
        call: open.role === 'builder' || (loop && open.role === undefined),
        ...(open.role && { role: open.role }),
        attempts: open.attempts,
        lost: lostOf(open.attempts),
      });
    pending = new Map();
  };
  for (const record of records) {
    switch (record.type) {
      case 'session':
        start ??= record;
        break;
      case 'attempt': {
        const key = attemptKey(record.t, record.role);
        const open = pending.get(key) ?? { t: record.t, ...(record.role && { role: record.role }), attempts: [] };
        open.attempts.push(record);
        pending.set(key, open);
        break;
      }
      case 'turn': {
        const role: SplitRole | undefined = split() ? 'planner' : undefined;
        const attempts = take(record.t, role);
        entries.push({ kind: 'turn', record, ...(role && { role }), attempts, lost: lostOf(attempts) });
        break;
      }
      case 'loop-step': {
        const role: SplitRole | undefined = split() ? 'builder' : undefined;
        const attempts = take(record.call, role);
        const own = { executions: new Map<number, ExecutionRecord>(), starts: new Map<number, number>() };
        const entry: CallEntry = { kind: 'call', record, ...(role && { role }), attempts, lost: lostOf(attempts), ...own };
        calls.push({ entry, ...own });
        entries.push(entry);
        break;
      }
      case 'execution-start': {
        const key = runKey(record.call, record.index);
        starts.set(key, (starts.get(key) ?? 0) + 1);
        break;
      }
      case 'execution':
        if (!executions.has(runKey(record.call, record.index))) executions.set(runKey(record.call, record.index), record);
        break;
      case 'resume':
        flushOpen();
        entries.push({ kind: 'resume', record });
        break;
      case 'message':
        entries.push({ kind: 'message', record });
        break;
      case 'end':
        flushOpen();
        entries.push({ kind: 'end', record });
        break;
    }
  }
  flushOpen();
  // Script runs are recorded after their call's step: attach each to its call.
  for (const { entry, executions: own, starts: ownStarts } of calls) {
    entry.record.outcomes.forEach((_, index) => {
      const key = runKey(entry.record.call, index);
      const run = executions.get(key);
      if (run) own.set(index, run);
      const started = starts.get(key);
      if (started) ownStarts.set(index, started);
    });
  }
  return { ...(start && { start }), entries };
}

/** Whether an entry's provider calls were retried: more than one attempt, a failed one, or one lost to a dead worker. */
export const retried = (entry: Entry) =>
  'attempts' in entry && (entry.attempts.length > 1 || entry.attempts.some((a) => a.outcome !== 'ok') || entry.lost > 0);

/** The stream position (problem or decision turn t) an entry belongs to, for aligning two sessions; undefined for events. */
export function positionOf(entry: Entry): number | undefined {
  switch (entry.kind) {
    case 'turn':
    case 'call':
      return entry.record.t;
    case 'message':
      return entry.record.t;
    case 'open':
      return entry.call ? undefined : entry.t;
    default:
      return undefined;
  }
}

/**
 * How many of the entries, from the first, stay as they are while the session
 * writes on: all but the open ones at the end (their turn or call has yet to
 * complete) and, from the last call on, at R3 (its script runs are recorded after it).
 */
export function settledEntries(entries: readonly Entry[]): number {
  let settled = entries.length;
  while (settled > 0 && entries[settled - 1]?.kind === 'open') settled--;
  for (let at = settled - 1; at >= 0; at--) if (entries[at]?.kind === 'call') return at;
  return settled;
}

import type { DecisionRecord } from '../core/session/session-record.js';
import { classSequence } from '../core/stream/stream.js';
import { CorruptRunDataError } from '../run-store/corrupt-data.js';
import type { TornLine } from '../run-store/json-files.js';
import type { RunStore, TranscriptPosition } from '../run-store/run-store.js';
import type { SessionSummary } from '../run-store/session-summary.js';
import type { TranscriptRecord } from '../run-store/transcript.js';
import type { IndexedSession, RunIndex } from './run-index.js';
import { conversationOf, type Conversation } from './session-conversation.js';
import { creditsOf } from './stream-credits.js';

/** One session read for its page: transcript, summary, stream and decisions, each with why it could not be read. */
export interface SessionData {
  readonly conversation: Conversation | null;
  readonly unreadable?: string;
  readonly torn: TornLine | null;
  readonly summary?: SessionSummary;
  /** The stream's class sequence, when it is there and is the one the session played. */
  readonly classes?: readonly number[];
  /** Why there is none. */
  readonly problem?: string;
  /** The decisions taken so far: the summary's, or (still running) its turns'. */
  readonly decisions: readonly DecisionRecord[];
  /** What each decision turn credited. */
  readonly credited: ReadonlyMap<number, string>;
  /** The session may still write: its page follows it. */
  readonly following: boolean;
}

const lineOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** A followed session's transcript as read so far, and where the read ended. */
interface KeptTranscript {
  readonly records: TranscriptRecord[];
  next: TranscriptPosition;
}

/** Sessions whose transcripts are kept at once, at most (each one a page follows). */
const KEPT_TRANSCRIPTS = 16;

/** Whether a session may still write: it has not ended, or its last record (written after its summary) is still to come. */
function mayStillWrite(session: IndexedSession, records: readonly TranscriptRecord[]): boolean {
  if (session.state === 'in flight' || session.state === 'waiting' || session.state === 'not read yet') return true;
  const last = records.at(-1);
  return session.state !== 'unreadable' && last !== undefined && last.type !== 'end' && last.type !== 'cancelled';
}

/**
 * Reads sessions for their pages. The transcript of a session that may still
 * write is kept between reads, so that a page following it (a read every 2 s)
 * reads only what was appended since; any other is read whole and let go.
 */
export class SessionReader {
  private readonly kept = new Map<string, KeptTranscript>();

  /** Reads a session; unreadable parts become lines on the page, never errors of the page. */
  async read(index: RunIndex, session: IndexedSession): Promise<SessionData> {
    const { store } = index;
    let conversation: Conversation | null = null;
    let unreadable: string | undefined;
    let torn: TornLine | null = null;
    let following = mayStillWrite(session, []);
    try {
      const read = await this.transcript(store, session);
      conversation = conversationOf(read.records, session.spec.rung === 'R3');
      torn = read.torn;
      following = mayStillWrite(session, read.records);
    } catch (error) {
      if (!(error instanceof CorruptRunDataError)) throw error;
      unreadable = lineOf(error);
    }
    if (!following || unreadable !== undefined) this.kept.delete(keyOf(store, session));
    return {
      ...(await readRest(store, session, conversation)),
      conversation,
      ...(unreadable !== undefined && { unreadable }),
      torn,
      following,
    };
  }

  /** The transcript: a kept one read on from where its last read ended, any other read whole (and kept). */
  private async transcript(
    store: RunStore,
    session: IndexedSession,
  ): Promise<{ records: readonly TranscriptRecord[]; torn: TornLine | null }> {
    const key = keyOf(store, session);
    for (;;) {
      const kept = this.kept.get(key);
      const from = kept?.next;
      const read = await store.readTranscriptAsIs(session.spec, from);
      // Another read moved it on meanwhile (two pages on one session): read again from where it is now.
      if (this.kept.get(key) !== kept || kept?.next !== from) continue;
      const now = kept ?? { records: [], next: read.next };
      for (const record of read.records) now.records.push(record);
      now.next = read.next;
      // Kept as the most recently used, the least recently used let go past the bound.
      this.kept.delete(key);
      this.kept.set(key, now);
      if (this.kept.size > KEPT_TRANSCRIPTS) this.kept.delete(this.kept.keys().next().value as string);
      return { records: now.records, torn: read.torn };
    }
  }
}

const keyOf = (store: RunStore, session: IndexedSession) => `${store.location}\n${session.folder}`;

/** The summary, the stream and what the decisions credited on it. */
async function readRest(
  store: RunStore,
  session: IndexedSession,
  conversation: Conversation | null,
): Promise<Omit<SessionData, 'conversation' | 'unreadable' | 'torn' | 'following'>> {
  // Read afresh, not from the index: the session may have finished since its last pass (an unreadable one is the index's to say).
  const summary = await store.readSummary(session.spec).catch((error: unknown) => {
    if (error instanceof CorruptRunDataError) return undefined;
    throw error;
  });
  let classes: number[] | undefined;
  let problem: string | undefined;
  try {
    const stream = await store.readStream(session.spec.seed);
    if (!stream) problem = `the run holds no stream for seed ${session.spec.seed}`;
    else if (summary && stream.hash !== summary.streamHash)
      problem = `the summary names stream ${summary.streamHash.slice(0, 12)}, the run holds ${stream.hash.slice(0, 12)}`;
    else classes = classSequence(stream);
  } catch (error) {
    problem = `the stream of seed ${session.spec.seed} is unreadable: ${lineOf(error)}`;
  }
  const decisions =
    summary?.decisions ??
    (conversation?.entries ?? []).flatMap((entry) => (entry.kind === 'turn' && entry.role !== 'builder' ? [entry.record.decision] : []));
  let credited = new Map<number, string>();
  if (classes) {
    try {
      credited = creditsOf(classes, session.spec, decisions);
    } catch (error) {
      problem = `the decisions do not replay on the stream: ${lineOf(error)}`;
    }
  }
  return {
    ...(summary && { summary }),
    ...(classes && !problem && { classes }),
    ...(problem && { problem }),
    decisions,
    credited,
  };
}

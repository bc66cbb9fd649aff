import type { DecisionRecord } from '../../core/session/session-record.js';
import { classSequence } from '../../core/stream/stream.js';
import { CorruptRunDataError } from '../../run-store/corrupt-data.js';
import type { TornLine } from '../../run-store/json-files.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import type { IndexedSession, RunIndex } from './run-index.js';
import { conversationOf, type Conversation } from './session-conversation.js';
import { creditsOf } from './stream-credits.js';

/** One session read whole for its page: transcript, summary, stream and decisions, each with why it could not be read. */
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
}

const lineOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** Reads a session; unreadable parts become lines on the page, never errors of the page. */
export async function readSession(index: RunIndex, session: IndexedSession): Promise<SessionData> {
  const { store } = index;
  let conversation: Conversation | null = null;
  let unreadable: string | undefined;
  let torn: TornLine | null = null;
  try {
    const read = await store.readTranscriptAsIs(session.spec);
    conversation = conversationOf(read.records, session.spec.rung === 'R3');
    torn = read.torn;
  } catch (error) {
    if (!(error instanceof CorruptRunDataError)) throw error;
    unreadable = lineOf(error);
  }
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
    conversation,
    ...(unreadable !== undefined && { unreadable }),
    torn,
    ...(summary && { summary }),
    ...(classes && !problem && { classes }),
    ...(problem && { problem }),
    decisions,
    credited,
  };
}

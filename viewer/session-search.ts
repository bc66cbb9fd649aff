import { CorruptRunDataError } from '../run-store/corrupt-data.js';
import { inBatches } from '../run-store/in-batches.js';
import type { TranscriptRecord } from '../run-store/transcript.js';
import type { IndexedSession, RunIndex } from './run-index.js';

/** What a search asks of a session: every field set must hold. */
export interface SessionFilter {
  /** A part of the model's id. */
  readonly model?: string;
  readonly rung?: string;
  readonly seed?: number;
  readonly state?: string;
  readonly termination?: string;
  /** Only sessions with unresolved decision turns. */
  readonly unresolved?: boolean;
  /** A text in the model's replies (case-insensitive): read from the transcripts. */
  readonly text?: string;
  readonly cell?: number;
}

export interface SearchResult {
  readonly sessions: readonly IndexedSession[];
  /** Transcripts read for the text; null when there was no text to find. */
  readonly scanned: number | null;
  /** The text search stopped at its limit of matches: more may match. */
  readonly truncated: boolean;
}

/** Sessions a text search returns at most: it reads transcripts one at a time, so it stops there. */
export const TEXT_MATCHES = 200;

const repliesOf = (records: readonly TranscriptRecord[]) =>
  records.flatMap((record) => {
    if (record.type === 'turn' || record.type === 'loop-step' || (record.type === 'attempt' && record.reply))
      return [record.reply?.text ?? '', ...(record.reply?.toolCalls ?? []).map((call) => call.arguments)];
    if (record.type === 'message' && record.role === 'assistant')
      return [record.text, ...(record.toolCalls ?? []).map((call) => call.arguments)];
    return [];
  });

function matchesIndex(session: IndexedSession, filter: SessionFilter): boolean {
  const { spec, summary } = session;
  if (filter.model && !spec.model.toLowerCase().includes(filter.model.toLowerCase())) return false;
  if (filter.rung && spec.rung !== filter.rung) return false;
  if (filter.seed !== undefined && spec.seed !== filter.seed) return false;
  if (filter.state && session.state !== filter.state) return false;
  if (filter.termination && summary?.termination !== filter.termination) return false;
  if (filter.unresolved && !(summary && summary.metrics.unresolved > 0)) return false;
  if (filter.cell !== undefined && session.cell !== filter.cell) return false;
  return true;
}

/** The sessions that match, in the sweep's order: the index's fields first, then (with a text) their transcripts, a few at a time. */
export async function searchSessions(index: RunIndex, filter: SessionFilter): Promise<SearchResult> {
  const candidates = index.sessions.filter((session) => matchesIndex(session, filter));
  const text = filter.text?.trim().toLowerCase();
  if (!text) return { sessions: candidates, scanned: null, truncated: false };
  const found: IndexedSession[] = [];
  let scanned = 0;
  for (let from = 0; from < candidates.length && found.length < TEXT_MATCHES; from += 16) {
    const batch = candidates.slice(from, from + 16).filter((session) => session.state !== 'waiting');
    const hits = await inBatches(batch, 4, async (session) => {
      scanned++;
      try {
        const { records } = await index.store.readTranscriptAsIs(session.spec);
        return repliesOf(records).some((reply) => reply.toLowerCase().includes(text));
      } catch (error) {
        if (error instanceof CorruptRunDataError) return false;
        throw error;
      }
    });
    batch.forEach((session, i) => hits[i] && found.push(session));
  }
  return { sessions: found.slice(0, TEXT_MATCHES), scanned, truncated: found.length >= TEXT_MATCHES };
}

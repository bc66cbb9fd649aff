import { endingOf, type SessionEnding } from '../core/session/termination.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { inBatches } from './in-batches.js';
import type { RunStore } from './run-store.js';
import type { SessionSummary } from './session-summary.js';
import { readSweepSummaries, type SummaryReading } from './sweep-summaries.js';

/**
 * Where a session stands: how its last run ended (its summary), or, without
 * one, in flight (begun) or waiting (not begun); unreadable when its summary
 * cannot be read. The one vocabulary of every command, page and report, all
 * reading it through this module.
 */
export type SessionState = SessionEnding | 'in flight' | 'waiting' | 'unreadable';

/** Every state, in the order tables and counts list them. */
export const SESSION_STATES: readonly SessionState[] = ['finished', 'stopped', 'cancelled', 'failed', 'in flight', 'waiting', 'unreadable'];

/** A state in a sentence: "3 stopped by a cost cap". */
export const STATE_WORDS: Readonly<Record<SessionState, string>> = {
  finished: 'finished',
  stopped: 'stopped by a cost cap',
  cancelled: 'cancelled',
  failed: 'failed mechanically',
  'in flight': 'in flight',
  waiting: 'waiting',
  unreadable: 'unreadable',
};

/** How a session whose summary is this one stands. */
export const summaryState = (summary: Pick<SessionSummary, 'termination'>): SessionEnding => endingOf(summary.termination);

/** Only a finished session is measured: a stopped, cancelled or failed one is left out of every estimand. */
export const isMeasured = (summary: Pick<SessionSummary, 'termination'>): boolean => summaryState(summary) === 'finished';

/** A session that running the sweep again goes on with: no summary, an unreadable one, or one that did not finish. */
export const needsRun = (reading: SummaryReading): boolean => !reading.summary || !isMeasured(reading.summary);

/** One session's summary as read, and the state it gives. */
export interface SessionReading extends SummaryReading {
  readonly state: SessionState;
}

/** Transcripts asked about at once. */
const PARALLEL_CHECKS = 32;

/** Every session's state, in the order of `specs`: its summary, and whether a session without one has begun. */
export async function readSessionStates(store: RunStore, specs: readonly SessionSpec[]): Promise<SessionReading[]> {
  const readings = await readSweepSummaries(store, specs);
  return inBatches(readings, PARALLEL_CHECKS, async (reading): Promise<SessionReading> => {
    if (reading.summary) return { ...reading, state: summaryState(reading.summary) };
    if (reading.corrupt) return { ...reading, state: 'unreadable' };
    return { ...reading, state: (await store.hasTranscript(reading.spec)) ? 'in flight' : 'waiting' };
  });
}

/** How many sessions are in each state (every state present, zero or not). */
export function countStates(states: Iterable<SessionState>): Record<SessionState, number> {
  const counts = Object.fromEntries(SESSION_STATES.map((state) => [state, 0])) as Record<SessionState, number>;
  for (const state of states) counts[state]++;
  return counts;
}

/** The counts as words, the states with none left out: "8 finished, 2 stopped by a cost cap". */
export function describeCounts(counts: Readonly<Record<SessionState, number>>): string {
  return SESSION_STATES.filter((state) => counts[state] > 0)
    .map((state) => `${counts[state]} ${STATE_WORDS[state]}`)
    .join(', ');
}

/** A run's sessions in one line: "8/10 sessions finished; 2 stopped by a cost cap". Only finished sessions count as finished. */
export function describeProgress(counts: Readonly<Record<SessionState, number>>): string {
  const total = SESSION_STATES.reduce((sum, state) => sum + counts[state], 0);
  const rest = describeCounts({ ...counts, finished: 0 });
  return `${counts.finished}/${total} sessions finished${rest ? `; ${rest}` : ''}`;
}

/** The error of a session's last failed attempt, on one line (a replay's miss says which call and why); undefined if none. */
export async function lastAttemptError(store: RunStore, session: SessionSpec): Promise<string | undefined> {
  const records = await store.readTranscriptRecords(session).catch(() => []);
  const errors = records.flatMap((record) => (record.type === 'attempt' && record.error ? [record.error] : []));
  return errors.at(-1)?.split('\n')[0];
}

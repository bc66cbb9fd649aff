import { isDeepStrictEqual } from 'node:util';
import type { DecisionRecord } from '../core/session/session-record.js';
import { protocolRules } from '../core/session/turn-protocol.js';
import { classSequence } from '../core/stream/stream.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { describeDecision, rereadSession } from '../activities/reread-session.js';
import { scoreTranscript, summaryFromTranscript } from '../activities/session-scoring.js';
import { CorruptRunDataError } from '../run-store/corrupt-data.js';
import { inBatches } from '../run-store/in-batches.js';
import { readManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runParts } from '../run-store/run-layout.js';
import { filesystemFaultOf } from '../run-store/store-errors.js';
import type { RunStore } from '../run-store/run-store.js';
import { buildSessionSummary, type SessionSummary } from '../run-store/session-summary.js';
import type { Transcript } from '../run-store/transcript.js';

/** What rescoring did to one session. */
export type SessionRescore =
  /** Its decisions or metrics read otherwise now: the summary rewritten (unless a dry run), the previous kept at `kept`. */
  | { readonly session: string; readonly status: 'changed'; readonly changes: readonly string[]; readonly kept?: string }
  | { readonly session: string; readonly status: 'unchanged' }
  /** Its summary was unreadable: built again from its transcript (unless a dry run), the unreadable one kept at `kept`. */
  | { readonly session: string; readonly status: 'rebuilt'; readonly kept?: string }
  /** No summary yet: the sweep scores it with the current code when it finishes. */
  | { readonly session: string; readonly status: 'not-finished' }
  /**
   * Left as it is: an imported R3 session, whose metrics come from the authors'
   * records, which the run does not keep; or a split agent's session, whose
   * two conversations rescore does not re-read yet.
   */
  | { readonly session: string; readonly status: 'left'; readonly why: 'imported-r3' | 'split-agent' }
  /** Unreadable, or diverged under the current reading: one line naming it; its summary is left as it is. */
  | { readonly session: string; readonly status: 'failed'; readonly reason: string };

export interface RunRescore {
  readonly run: string;
  readonly sessions: readonly SessionRescore[];
}

/** Turns whose change is spelled out; the rest are counted. */
const LISTED_TURNS = 6;

/** Numbers to four decimals, nothing as 'none'. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number' && !Number.isInteger(value)) return String(Number(value.toFixed(4)));
  return String(value);
}

/** An object's values by dotted path (keepsByOccurrence.1.keeps), so that changes are named one value at a time. */
function flatten(value: unknown, path: string, into: Map<string, unknown>): Map<string, unknown> {
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) flatten(inner, path ? `${path}.${key}` : key, into);
  } else into.set(path, value);
  return into;
}

/** One `name before → after` per value that differs. */
function valueChanges(before: unknown, after: unknown, prefix: string): string[] {
  const [old, now] = [flatten(before, prefix, new Map()), flatten(after, prefix, new Map())];
  const names = [...new Set([...old.keys(), ...now.keys()])];
  return names.filter((name) => old.get(name) !== now.get(name)).map((name) => `${name} ${shown(old.get(name))} → ${shown(now.get(name))}`);
}

/** One line per decision turn read otherwise now, the first few spelled out. */
function turnChanges(before: readonly DecisionRecord[], after: readonly DecisionRecord[]): string[] {
  const byTurn = (decisions: readonly DecisionRecord[]) => new Map(decisions.map((d) => [d.t, d]));
  const [old, now] = [byTurn(before), byTurn(after)];
  const turns = [...new Set([...old.keys(), ...now.keys()])].sort((a, b) => a - b);
  const describe = (d: DecisionRecord | undefined) => (d ? describeDecision(d) : 'no turn');
  const changed = turns.filter((t) => !isDeepStrictEqual(old.get(t), now.get(t)));
  const lines = changed.slice(0, LISTED_TURNS).map((t) => `turn ${t} ${describe(old.get(t))} → ${describe(now.get(t))}`);
  if (changed.length > LISTED_TURNS) lines.push(`${changed.length - LISTED_TURNS} more turns`);
  return lines;
}

/** A session's summary recomputed from its transcript with the current reading and metrics; written unless `dryRun`. */
async function rescoreSession(store: RunStore, spec: SessionSpec, options: { dryRun: boolean; at: string }): Promise<SessionRescore> {
  const session = sessionKey(spec);
  const summary = await store.readSummary(spec).catch((error: unknown) => {
    if (error instanceof CorruptRunDataError) return error;
    throw error;
  });
  if (!summary) return { session, status: 'not-finished' };
  const transcript = await store.readTranscript(spec);
  const where = (part: string) => store.where(part);
  if (!transcript.start)
    return { session, status: 'failed', reason: `${where(runParts.session(spec))}: no opening record in its transcript` };
  const imported = spec.rung === 'R3' && transcript.steps.length === 0 && transcript.records.some((record) => record.type === 'message');
  if (summary instanceof CorruptRunDataError) {
    if (imported) return { session, status: 'failed', reason: `${summary.message} (an imported R3 session: import its arm again)` };
    return rebuildSummary(store, spec, transcript, summary, options.dryRun);
  }
  if (imported) return { session, status: 'left', why: 'imported-r3' };
  if (spec.agent?.kind === 'split') return { session, status: 'left', why: 'split-agent' };
  const stream = await store.readStream(spec.seed);
  if (!stream) return { session, status: 'failed', reason: `${where(runParts.stream(spec.seed))}: missing` };
  if (stream.hash !== summary.streamHash)
    return { session, status: 'failed', reason: `${where(runParts.stream(spec.seed))}: not the stream the session played (hash)` };
  const classes = classSequence(stream);
  const reread = rereadSession(spec, protocolRules(spec, classes), stream, transcript, summary.termination);
  if (reread.kind === 'diverged') return { session, status: 'failed', reason: `${session}: ${reread.why}` };
  // As a summary stores it (JSON), so that only values are compared.
  const score = JSON.parse(JSON.stringify(scoreTranscript(spec, classes, reread.transcript, summary.termination))) as ReturnType<
    typeof scoreTranscript
  >;
  const changes = [
    ...(spec.rung === 'R3' ? reread.changes : turnChanges(summary.decisions, score.decisions)),
    ...valueChanges(summary.metrics, score.metrics, ''),
    ...valueChanges(summary.script?.metrics, score.script, 'script'),
  ];
  const same =
    isDeepStrictEqual(summary.decisions, score.decisions) &&
    isDeepStrictEqual(summary.metrics, score.metrics) &&
    isDeepStrictEqual(summary.script?.metrics, score.script);
  if (same) return { session, status: 'unchanged' };
  const rescored = rescoredSummary(summary, score, options.at);
  const kept = options.dryRun ? undefined : await store.replaceSummary(spec, rescored);
  return { session, status: 'changed', changes, ...(kept && { kept }) };
}

/**
 * An unreadable summary built again from the session's transcript, as the
 * session wrote it when its run ended (how it ended, when, and what its calls
 * cost are all on record); the unreadable one is kept beside it. A transcript
 * without an ending belongs to a session that never wrote its summary
 * whole: running the sweep again goes on with it.
 */
async function rebuildSummary(
  store: RunStore,
  spec: SessionSpec,
  transcript: Transcript,
  corrupt: CorruptRunDataError,
  dryRun: boolean,
): Promise<SessionRescore> {
  const session = sessionKey(spec);
  const last = transcript.records.at(-1);
  const termination = last?.type === 'end' ? last.termination : last?.type === 'cancelled' ? 'cancelled' : undefined;
  if (!last || termination === undefined)
    return {
      session,
      status: 'failed',
      reason: `${corrupt.message}, and its transcript has not ended: run the sweep again to go on with it`,
    };
  const stream = await store.readStream(spec.seed);
  if (!stream) return { session, status: 'failed', reason: `${store.where(runParts.stream(spec.seed))}: missing` };
  const summary = summaryFromTranscript({
    spec,
    streamHash: stream.hash,
    classes: classSequence(stream),
    transcript,
    termination,
    finishedAt: last.at,
  });
  const kept = dryRun ? undefined : await store.replaceSummary(spec, summary);
  return { session, status: 'rebuilt', ...(kept && { kept }) };
}

/** The summary with its decisions and metrics as scored now; how it ended and what its calls cost are facts of the run, kept as they are. */
function rescoredSummary(summary: SessionSummary, score: ReturnType<typeof scoreTranscript>, at: string): SessionSummary {
  const { responseModels, modelMismatch, usage, costUsd, attempts } = summary;
  return buildSessionSummary({
    spec: summary.spec,
    streamHash: summary.streamHash,
    termination: summary.termination,
    decisions: score.decisions,
    metrics: score.metrics,
    script: score.script,
    accounting: { responseModels, modelMismatch, usage, costUsd, attempts },
    finishedAt: summary.finishedAt,
    rescoredAt: at,
  });
}

/** Sessions rescored at once. */
const PARALLEL_SESSIONS = 8;

/**
 * Every finished session of a run recomputed from its transcript
 * (rescoreSession); a session that cannot be read or scored is one failed
 * line naming it, and the others are still rescored. A file-system fault (an
 * unreadable directory, a full disk while writing) stops the run's rescoring.
 */
export async function rescoreRun(location: string, options: { dryRun: boolean }): Promise<RunRescore> {
  const store = openRunStore(location);
  const manifest = await readManifest(store);
  const at = new Date().toISOString();
  const sessions = await inBatches(expandSweep(manifest.config), PARALLEL_SESSIONS, async (spec) => {
    try {
      return await rescoreSession(store, spec, { ...options, at });
    } catch (error) {
      if (filesystemFaultOf(error)) throw error;
      const reason =
        error instanceof CorruptRunDataError
          ? error.message
          : `${store.where(runParts.session(spec))}: cannot be scored (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
      return { session: sessionKey(spec), status: 'failed' as const, reason };
    }
  });
  return { run: store.location, sessions };
}

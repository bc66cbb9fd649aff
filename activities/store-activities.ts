import { systemPrompt } from '../core/rungs/system-prompt.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { encodeClasses } from '../core/session/compact-codes.js';
import { framingOf, sessionKey } from '../core/sweep/session-spec.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runParts } from '../run-store/run-layout.js';
import { needsRun } from '../run-store/session-states.js';
import { readSweepSummaries } from '../run-store/sweep-summaries.js';
import { endingOf } from '../core/session/termination.js';
import type { FinishInput, SessionOutcome, SessionRef, SessionSetup, StoreActivities } from '../protocol/activities.js';
import { summaryFromTranscript } from './session-scoring.js';
import { loadSessionContext, openSession } from './session-context.js';

const now = () => new Date().toISOString();

/**
 * Scores the session from the decisions its transcript records (turns never
 * reached count as truncated; R3 from its model calls and script runs), writes
 * summary.json and the end record. The model activity whose call ends the
 * session calls it too (model-activities.ts).
 */
export async function finishSession({ runDir, session, termination }: FinishInput): Promise<SessionOutcome> {
  const { store, spec, transcript } = await openSession({ runDir, session });
  const { stream, classes } = await loadSessionContext(store, spec);
  const summary = summaryFromTranscript({ spec, streamHash: stream.hash, classes, transcript, termination, finishedAt: now() });
  await store.writeSummary(spec, summary);
  const { metrics } = summary;
  if (transcript.ended !== termination) await store.appendTranscript(session, { type: 'end', at: summary.finishedAt, termination });
  return {
    sessionKey: summary.sessionKey,
    termination,
    utility: metrics.utility,
    optimum: metrics.optimum,
    commitments: metrics.commitments,
    unresolved: metrics.unresolved,
  };
}

export function createStoreActivities(): StoreActivities {
  return {
    /**
     * Writes the stream and the session's opening record (system prompt and
     * tools) if they are not there yet, marks a replacement run after a
     * mechanical failure, and returns the class sequence — all the workflow needs.
     */
    async prepareSession({ runDir, spec }: SessionSetup): Promise<{ classes: string; streamHash: string }> {
      const store = openRunStore(runDir);
      const { stream, classes } = await loadSessionContext(store, spec);
      const transcript = await store.readTranscript(spec);
      if (!transcript.start) {
        // A split agent's opening record holds what each of its two agents is told: the builder's as the session's.
        const split = spec.agent?.kind === 'split';
        const framing = framingOf(spec, split ? 'builder' : undefined);
        const planner = split && framingOf(spec, 'planner');
        await store.appendTranscript(spec, {
          type: 'session',
          at: now(),
          sessionKey: sessionKey(spec),
          spec,
          streamHash: stream.hash,
          system: systemPrompt(framing),
          tools: toolSpecs(framing),
          ...(planner && { planner: { system: systemPrompt(planner), tools: toolSpecs(planner) } }),
        });
      } else if (transcript.start.streamHash !== stream.hash) {
        const where = store.where(runParts.session(spec));
        throw new Error(`${where}: recorded with stream ${transcript.start.streamHash.slice(0, 12)}, now ${stream.hash.slice(0, 12)}`);
      }
      // Run again after it ended short of finishing: the rest of the session goes on from its records, in flight, not stopped.
      const unfinished = transcript.cancelled
        ? 'cancelled'
        : transcript.ended && endingOf(transcript.ended) !== 'finished' && transcript.ended;
      if (unfinished) {
        await store.appendTranscript(spec, { type: 'resume', at: now(), after: unfinished });
        await store.removeSummary(spec);
      }
      return { classes: encodeClasses(classes), streamHash: stream.hash };
    },

    finishSession,

    /**
     * The cancel goes after everything the session recorded, and its summary
     * says it was cancelled (scored as far as it went, measured nowhere);
     * running the session again goes on from those records. A session that
     * ended (a cancel that came as it finished) or never began records nothing.
     */
    async recordCancelled({ runDir, session }: SessionRef): Promise<void> {
      if (!(await openRunStore(runDir).hasTranscript(session))) return;
      const { store, spec, transcript } = await openSession({ runDir, session });
      if (transcript.ended) return;
      const at = now();
      if (!transcript.cancelled) await store.appendTranscript(session, { type: 'cancelled', at });
      const { stream, classes } = await loadSessionContext(store, spec);
      const cancelled = await store.readTranscript(session);
      await store.writeSummary(
        spec,
        summaryFromTranscript({ spec, streamHash: stream.hash, classes, transcript: cancelled, termination: 'cancelled', finishedAt: at }),
      );
    },

    /** Indices (in expandSweep order) of the sessions to run: those not finished. */
    async unfinishedSessions({ runDir, config }: { runDir: string; config: SweepConfig }): Promise<number[]> {
      const readings = await readSweepSummaries(openRunStore(runDir), expandSweep(config));
      return readings.flatMap((reading, index) => (needsRun(reading) ? [index] : []));
    },
  };
}

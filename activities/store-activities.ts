import { sessionMetrics } from '../core/metrics/session-metrics.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { toolSpecs } from '../core/rungs/tools.js';
import { withTruncatedTail } from '../core/session/replay.js';
import { encodeClasses } from '../core/session/compact-codes.js';
import { framingOf, sessionKey } from '../core/sweep/session-spec.js';
import type { SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { readJsonIfExists, writeJsonAtomic } from './run-store/json-files.js';
import { runLayout } from './run-store/run-layout.js';
import type { SessionSummary } from './run-store/session-summary.js';
import { withFile } from './run-store/store-errors.js';
import { MECHANICAL_FAILURES } from '../core/session/termination.js';
import type { FinishInput, SessionOutcome, SessionSetup, StoreActivities } from '../protocol/activities.js';
import { appendRecord, readTranscript, type AttemptRecord } from './run-store/transcript.js';
import { scoreLoopSession } from './script-summary.js';
import { loadSessionContext, openSession } from './session-context.js';

const now = () => new Date().toISOString();

function usageTotals(attempts: readonly AttemptRecord[]) {
  return {
    inputTokens: attempts.reduce((sum, a) => sum + a.usage.inputTokens, 0),
    outputTokens: attempts.reduce((sum, a) => sum + a.usage.outputTokens, 0),
    cachedInputTokens: attempts.reduce((sum, a) => sum + a.usage.cachedInputTokens, 0),
    estimated: attempts.some((a) => a.usageEstimated),
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
      const { stream, classes } = await loadSessionContext(runDir, spec);
      const path = runLayout.transcript(runDir, spec);
      const transcript = await readTranscript(path);
      if (!transcript.start) {
        const framing = framingOf(spec);
        await withFile(path, () =>
          appendRecord(path, {
            type: 'session',
            at: now(),
            sessionKey: sessionKey(spec),
            spec,
            streamHash: stream.hash,
            system: systemPrompt(framing),
            tools: toolSpecs(framingOf(spec)),
          }),
        );
      } else if (transcript.start.streamHash !== stream.hash) {
        throw new Error(`${path}: recorded with stream ${transcript.start.streamHash.slice(0, 12)}, now ${stream.hash.slice(0, 12)}`);
      }
      const ended = transcript.ended;
      if (ended && MECHANICAL_FAILURES.includes(ended)) {
        await withFile(path, () => appendRecord(path, { type: 'resume', at: now(), after: ended }));
      }
      return { classes: encodeClasses(classes), streamHash: stream.hash };
    },

    /**
     * Scores the session from the decisions its transcript records (turns never
     * reached count as truncated; R3 from its model calls and script runs), writes
     * summary.json and the end record.
     */
    async finishSession({ runDir, session, termination }: FinishInput): Promise<SessionOutcome> {
      const { spec, transcriptPath: path, transcript } = await openSession({ runDir, session });
      const { stream, classes, rules: setting } = await loadSessionContext(runDir, spec);
      const rules = { budget: spec.budget, charge: spec.charge };
      const script = spec.rung === 'R3' ? scoreLoopSession(transcript, classes, spec.budget) : undefined;
      const complete = script
        ? script.decisions
        : withTruncatedTail(
            classes,
            setting,
            transcript.turns.map((turn) => turn.decision),
          );
      const metrics = script?.metrics ?? sessionMetrics({ classes, rules, decisions: complete });
      const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt');
      const mechanicalFailure = MECHANICAL_FAILURES.includes(termination);
      const summary: SessionSummary = {
        sessionKey: sessionKey(spec),
        spec,
        streamHash: stream.hash,
        termination,
        mechanicalFailure,
        decisions: complete,
        metrics,
        ...(script && { script: { metrics: script.script } }),
        responseModels: [...new Set(attempts.flatMap((a) => (a.responseModel ? [a.responseModel] : [])))],
        modelMismatch: attempts.some((a) => a.modelMatches === false),
        usage: usageTotals(attempts),
        costUsd: transcript.costUsd,
        attempts: {
          total: attempts.length,
          transportErrors: attempts.filter((a) => a.outcome === 'transport-error').length,
          permanentErrors: attempts.filter((a) => a.outcome === 'permanent-error').length,
          retriedTurns: new Set(attempts.filter((a) => a.outcome !== 'ok').map((a) => a.t)).size,
        },
        finishedAt: now(),
      };
      const summaryPath = runLayout.summary(runDir, spec);
      await withFile(summaryPath, () => writeJsonAtomic(summaryPath, summary));
      if (transcript.ended !== termination)
        await withFile(path, () => appendRecord(path, { type: 'end', at: summary.finishedAt, termination }));
      return {
        sessionKey: summary.sessionKey,
        termination,
        mechanicalFailure,
        utility: metrics.utility,
        optimum: metrics.optimum,
        commitments: metrics.commitments,
        unresolved: metrics.unresolved,
      };
    },

    /** Indices (in expandSweep order) of sessions without a summary, or whose summary is a mechanical failure. */
    async unfinishedSessions({ runDir, config }: { runDir: string; config: SweepConfig }): Promise<number[]> {
      const specs = expandSweep(config);
      const summaries = await Promise.all(specs.map((spec) => readJsonIfExists<SessionSummary>(runLayout.summary(runDir, spec))));
      return specs.flatMap((_, index) => {
        const summary = summaries[index];
        return !summary || summary.mechanicalFailure ? [index] : [];
      });
    },
  };
}

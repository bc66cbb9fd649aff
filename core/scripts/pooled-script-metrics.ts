import type { ScriptMetrics } from './loop-metrics.js';

/** R3's diagnostics pooled over sessions; rates are re-pooled (sums over sums), null when undefined. */
export interface PooledScriptMetrics {
  readonly sessions: number;
  readonly buildsPerSession: number;
  readonly firstSightBuilds: number;
  readonly builds: number;
  readonly reuseRuns: number;
  readonly crossClassRunsRefused: number;
  /** Null where a session's summary predates the count (a run scored by an earlier version). */
  readonly runAttempts: number | null;
  /** Refused share of run attempts. */
  readonly refusedRunRate: number | null;
  readonly malformedCalls: number | null;
  readonly unknownCalls: number | null;
  readonly scriptSuccessRate: number | null;
  readonly rawAnswers: number;
  readonly rawAccuracy: number | null;
  readonly zeroBuildSessions: number;
  readonly writesRefused: number;
  readonly forcedAdvances: number;
  /** Model calls per problem shown, re-pooled. */
  readonly callsPerProblem: number | null;
  /** Problems shown, and those answered correctly (the diagnostic the paper reports at R3 instead of a Score). */
  readonly problemsShown: number;
  readonly answeredCorrectly: number;
}

const sum = (sessions: readonly ScriptMetrics[], pick: (m: ScriptMetrics) => number) => sessions.reduce((total, m) => total + pick(m), 0);
const ratio = (numerator: number, denominator: number | null) => (denominator !== null && denominator > 0 ? numerator / denominator : null);
/** A count that summaries written before it existed lack: null unless every session has it. */
const sumIfKnown = (sessions: readonly ScriptMetrics[], pick: (m: ScriptMetrics) => number | undefined) =>
  sessions.every((m) => pick(m) !== undefined) ? sessions.reduce((total, m) => total + (pick(m) ?? 0), 0) : null;

export function poolScriptMetrics(sessions: readonly ScriptMetrics[]): PooledScriptMetrics {
  if (sessions.length === 0) throw new Error('poolScriptMetrics: no sessions');
  const builds = sum(sessions, (m) => m.builds);
  const reuseRuns = sum(sessions, (m) => m.reuseRuns);
  const refused = sum(sessions, (m) => m.crossClassRunsRefused);
  const runAttempts = sumIfKnown(sessions, (m) => m.runAttempts);
  const rawAnswers = sum(sessions, (m) => m.rawAnswers);
  return {
    sessions: sessions.length,
    buildsPerSession: builds / sessions.length,
    firstSightBuilds: sum(sessions, (m) => m.firstSightBuilds),
    builds,
    reuseRuns,
    crossClassRunsRefused: refused,
    runAttempts,
    refusedRunRate: ratio(refused, runAttempts),
    malformedCalls: sumIfKnown(sessions, (m) => m.malformedCalls),
    unknownCalls: sumIfKnown(sessions, (m) => m.unknownCalls),
    scriptSuccessRate: ratio(
      sum(sessions, (m) => m.scriptCorrect),
      sum(sessions, (m) => m.scriptRuns),
    ),
    rawAnswers,
    rawAccuracy: ratio(
      sum(sessions, (m) => m.rawCorrect),
      rawAnswers,
    ),
    zeroBuildSessions: sessions.filter((m) => m.zeroBuild).length,
    writesRefused: sum(sessions, (m) => m.writesRefused),
    forcedAdvances: sum(sessions, (m) => m.forcedAdvances),
    callsPerProblem: ratio(
      sum(sessions, (m) => m.modelCalls),
      sum(sessions, (m) => m.playedTurns),
    ),
    problemsShown: sum(sessions, (m) => m.playedTurns),
    answeredCorrectly: sum(sessions, (m) => m.answeredCorrectly),
  };
}

import { sessionMetrics, type SessionMetrics } from '../metrics/session-metrics.js';
import { buildReplay } from './build-replay.js';

/**
 * What happened in an R3 session, as metrics need it: the same shape whether
 * it comes from our transcript or from an imported arm of the paper's, so
 * both are scored by `loopMetrics`.
 */
export interface LoopRecord {
  readonly classes: readonly number[];
  readonly budget: number;
  /** Problems the session showed (the last one it reached). */
  readonly shown: number;
  readonly calls: number;
  /** Successful writes, in order: the problem and the script's name. */
  readonly writes: readonly { readonly t: number; readonly name: string }[];
  /** Script runs: the problem, the script, whether it returned a value and whether that value was the gold answer. */
  readonly runs: readonly { readonly t: number; readonly name: string; readonly returned: boolean; readonly correct: boolean }[];
  /** Submitted answers; `byHand` when no script ran on that problem. */
  readonly submissions: readonly { readonly t: number; readonly correct: boolean; readonly byHand: boolean }[];
  readonly writesRefused: number;
  readonly crossClassRunsRefused: number;
  /**
   * run_script calls on a script that exists, refused ones included (the
   * paper's run attempts, its harness's n_run_calls); calls naming no script
   * are not attempts.
   */
  readonly runAttempts: number;
  /** Tool calls whose arguments were not valid, and calls to a tool the loop does not have. */
  readonly malformedCalls: number;
  readonly unknownCalls: number;
  /** Problems given up after two replies in a row without a tool call. */
  readonly forcedAdvances: number;
}

/** R3's diagnostics (HARNESS.md, R3; paper F.5), next to the ladder's measures. R3 has no Score. */
export interface ScriptMetrics {
  /** Problems shown. */
  readonly playedTurns: number;
  readonly modelCalls: number;
  /** modelCalls / playedTurns; null when no problem was shown. */
  readonly callsPerProblem: number | null;
  /** Successful writes (rewrites of a class included); commitments are the distinct classes among them. */
  readonly builds: number;
  /** Writes on a class's first occurrence. */
  readonly firstSightBuilds: number;
  readonly distinctClassesBuilt: number;
  /** Writes on a class that already had one. */
  readonly rebuilds: number;
  /** write_script with no writes left: refused, nothing saved. */
  readonly writesRefused: number;
  /** Runs on a problem other than the one the script was written on. */
  readonly reuseRuns: number;
  /** n_cross_class_run_refused: runs of a script bound to another class, refused without running. */
  readonly crossClassRunsRefused: number;
  /** run_script calls on an existing script, refused ones included (C.5's run attempts). */
  readonly runAttempts: number;
  readonly malformedCalls: number;
  readonly unknownCalls: number;
  readonly forcedAdvances: number;
  readonly scriptRuns: number;
  /** Runs that returned a value (rather than an error or a limit). */
  readonly scriptReturns: number;
  /** Runs that returned the gold answer of the problem they ran on. */
  readonly scriptCorrect: number;
  /** scriptCorrect / scriptRuns; null without runs. */
  readonly scriptSuccessRate: number | null;
  /** Writes whose script returned the gold answer on the problem it was written on. */
  readonly buildsCorrect: number;
  readonly submitted: number;
  /** Problems answered correctly: the diagnostic the paper reports instead of a Score. */
  readonly answeredCorrectly: number;
  /** Submissions on problems where no script ran (submitted by hand), and how many were correct. */
  readonly rawAnswers: number;
  readonly rawCorrect: number;
  /** rawCorrect / rawAnswers; null without them. */
  readonly rawAccuracy: number | null;
  readonly creditedByScript: number;
  readonly creditedByAnswer: number;
  /** The first-sight hazard over the problems the session showed only (the replayed hazard is in the session metrics). */
  readonly firstSightHazardAsShown: number | null;
  readonly zeroBuild: boolean;
}

/**
 * Scores an R3 session as the paper does: commitments are the distinct
 * classes with an authoring event, replayed through the whole stream
 * (build-replay.ts), so first occurrences after the session ended count as
 * eligible passes; utility is the number of problems answered correctly.
 */
export function loopMetrics(record: LoopRecord): {
  metrics: SessionMetrics;
  script: ScriptMetrics;
  decisions: ReturnType<typeof buildReplay>['decisions'];
} {
  const { classes } = record;
  const replayed = buildReplay(
    classes,
    record.budget,
    record.writes.map((write) => write.t),
  );
  const replayMetrics = sessionMetrics(replayed);
  const correct = record.submissions.filter((s) => s.correct).length;
  const metrics: SessionMetrics = { ...replayMetrics, utility: correct, net: correct, regret: replayMetrics.optimum - correct };

  const occurrenceAt: number[] = [];
  const seen = new Map<number, number>();
  classes.forEach((classId, index) => {
    const occurrence = (seen.get(classId) ?? 0) + 1;
    seen.set(classId, occurrence);
    occurrenceAt[index] = occurrence;
  });
  const firstSight = record.writes.filter(({ t }) => occurrenceAt[t - 1] === 1).length;
  const shownFirsts = replayed.decisions.filter((d) => d.t <= record.shown && d.occurrence === 1);
  const shownFirstBuilds = shownFirsts.filter((d) => d.action === 'commit').length;
  const writtenAt = new Set(record.writes.map(({ t, name }) => `${t}|${name}`));
  const reuseRuns = record.runs.filter((run) => !writtenAt.has(`${run.t}|${run.name}`)).length;
  const returned = record.runs.filter((run) => run.returned).length;
  const scriptCorrect = record.runs.filter((run) => run.correct).length;
  const raw = record.submissions.filter((s) => s.byHand);
  const rawCorrect = raw.filter((s) => s.correct).length;
  const distinct = replayMetrics.commitments;
  const script: ScriptMetrics = {
    playedTurns: record.shown,
    modelCalls: record.calls,
    callsPerProblem: record.shown > 0 ? record.calls / record.shown : null,
    builds: record.writes.length,
    firstSightBuilds: firstSight,
    distinctClassesBuilt: distinct,
    rebuilds: record.writes.length - distinct,
    writesRefused: record.writesRefused,
    reuseRuns,
    crossClassRunsRefused: record.crossClassRunsRefused,
    runAttempts: record.runAttempts,
    malformedCalls: record.malformedCalls,
    unknownCalls: record.unknownCalls,
    forcedAdvances: record.forcedAdvances,
    scriptRuns: record.runs.length,
    scriptReturns: returned,
    scriptCorrect,
    scriptSuccessRate: record.runs.length > 0 ? scriptCorrect / record.runs.length : null,
    buildsCorrect: record.writes.filter(({ t, name }) => record.runs.some((run) => run.t === t && run.name === name && run.correct)).length,
    submitted: record.submissions.length,
    answeredCorrectly: correct,
    rawAnswers: raw.length,
    rawCorrect,
    rawAccuracy: raw.length > 0 ? rawCorrect / raw.length : null,
    creditedByScript: correct - rawCorrect,
    creditedByAnswer: rawCorrect,
    firstSightHazardAsShown: shownFirsts.length > 0 ? shownFirstBuilds / shownFirsts.length : null,
    zeroBuild: record.writes.length === 0,
  };
  return { metrics, script, decisions: replayed.decisions };
}

import { hindsightOptimum } from '../metrics/hindsight-optimum.js';
import type { OccurrenceTally, SessionMetrics } from '../metrics/session-metrics.js';
import type { SessionRules } from '../session/session-state.js';
import { emptyLedger, recordAction, writesLeft } from './script-ledger.js';
import type { ScriptTurn } from './script-turn.js';

/** R3's own diagnostics (paper §3.3, B.6, F.5), next to the ladder's measures. */
export interface ScriptMetrics {
  readonly playedTurns: number;
  /** Accepted writes: R3's commitments. */
  readonly builds: number;
  readonly firstSightBuilds: number;
  readonly distinctClassesBuilt: number;
  /** Writes on a class that already had a script. */
  readonly rebuilds: number;
  /** write_script with no writes left: refused, nothing saved. */
  readonly writesRefused: number;
  /** Executed run_script calls (on an item of the script's class). */
  readonly reuseRuns: number;
  /** n_cross_class_run_refused: runs on an item of another class, refused without executing. */
  readonly crossClassRunsRefused: number;
  /** Script executions: each write's test run plus each reuse run. */
  readonly scriptRuns: number;
  /** Executions that returned a value (rather than an error or a limit). */
  readonly scriptReturns: number;
  /** Executions that returned the gold answer. */
  readonly scriptCorrect: number;
  /** scriptCorrect / scriptRuns; null without executions. */
  readonly scriptSuccessRate: number | null;
  /** Builds whose test run on the item they were written on returned the gold answer. */
  readonly buildsCorrect: number;
  readonly rawAnswers: number;
  readonly rawCorrect: number;
  /** rawCorrect / rawAnswers; null without raw answers. */
  readonly rawAccuracy: number | null;
  readonly creditedByScript: number;
  readonly creditedByAnswer: number;
  readonly zeroBuild: boolean;
}

export interface ScriptSessionRecord {
  readonly classes: readonly number[];
  readonly rules: SessionRules;
  /** The turns played, one per item from the first, in order. */
  readonly turns: readonly ScriptTurn[];
}

/**
 * Scores an R3 session by replaying the ledger over its turns (so a record
 * that does not fit its stream or the rules is rejected). A turn is eligible
 * for the ladder's measures when it is resolved, writes remain and the class
 * has no script; a build is R3's commitment. Turns after the session stopped
 * (write budget spent, a cap, a mechanical failure) count as truncated.
 */
export function scriptSessionMetrics(record: ScriptSessionRecord): { metrics: SessionMetrics; script: ScriptMetrics } {
  const { classes, rules, turns } = record;
  if (turns.length > classes.length) throw new Error(`R3 record: ${turns.length} turns for ${classes.length} items`);
  let ledger = emptyLedger(rules.budget);
  const occurrences: number[] = [];
  const tallies: { eligible: number; keeps: number }[] = [];
  const count = { firstSightBuilds: 0, firstOccurrenceTurns: 0, totalLateness: 0, rebuilds: 0, buildsCorrect: 0, credited: 0 };
  turns.forEach((turn, index) => {
    const classId = classes[index] as number;
    const occurrence = (occurrences[classId] ?? 0) + 1;
    occurrences[classId] = occurrence;
    if (turn.t !== index + 1 || turn.classId !== classId || turn.occurrence !== occurrence) {
      throw new Error(`R3 record: turn ${index + 1} does not match the stream`);
    }
    const bound = ledger.scripts.find((script) => script.id === turn.scriptId);
    const hasScript = ledger.scripts.some((script) => script.classId === classId);
    const open = writesLeft(ledger) > 0;
    const valid =
      (turn.action === 'write' && open) ||
      (turn.action === 'write-refused' && !open) ||
      (turn.action === 'run' && bound?.classId === classId) ||
      (turn.action === 'run-refused' && bound !== undefined && bound.classId !== classId) ||
      turn.action === 'answer' ||
      turn.action === 'unresolved';
    if (!valid || (turn.action === 'unresolved') !== (turn.failure !== undefined)) {
      throw new Error(`R3 record: turn ${turn.t}'s ${turn.action} does not fit the rules`);
    }
    if (turn.credited && turn.action !== 'write' && turn.action !== 'run' && turn.action !== 'answer') {
      throw new Error(`R3 record: turn ${turn.t} is credited without a script run or an answer`);
    }
    if (turn.credited) count.credited++;
    if (turn.action !== 'unresolved' && open && !hasScript) {
      const tally = (tallies[occurrence - 1] ??= { eligible: 0, keeps: 0 });
      tally.eligible++;
      if (occurrence === 1) count.firstOccurrenceTurns++;
      if (turn.action === 'write') tally.keeps++;
    }
    if (turn.action === 'write') {
      count.totalLateness += occurrence - 1;
      if (occurrence === 1) count.firstSightBuilds++;
      if (hasScript) count.rebuilds++;
      if (turn.credited) count.buildsCorrect++;
    }
    ledger = recordAction(ledger, classId, turn.t, turn.action);
  });
  const of = (action: ScriptTurn['action']) => turns.filter((turn) => turn.action === action);
  const executed = turns.filter((turn) => turn.action === 'write' || turn.action === 'run');
  const answers = of('answer');
  const builds = ledger.scripts.length;
  const rawCorrect = answers.filter((turn) => turn.credited).length;
  const scriptCorrect = executed.filter((turn) => turn.credited).length;
  const net = count.credited - rules.charge * builds;
  const optimum = hindsightOptimum(classes, rules.budget, rules.charge);
  const unresolved = of('unresolved').length;
  const metrics: SessionMetrics = {
    budget: rules.budget,
    charge: rules.charge,
    utility: count.credited,
    commitments: builds,
    net,
    optimum,
    regret: optimum - net,
    firstSightCommitments: count.firstSightBuilds,
    firstSightRate: builds > 0 ? count.firstSightBuilds / builds : null,
    firstOccurrenceTurns: count.firstOccurrenceTurns,
    firstSightHazard: count.firstOccurrenceTurns > 0 ? count.firstSightBuilds / count.firstOccurrenceTurns : null,
    totalLateness: count.totalLateness,
    meanLateness: builds > 0 ? count.totalLateness / builds : null,
    budgetUtilization: builds / rules.budget,
    decisionTurns: classes.length,
    unresolved,
    truncated: classes.length - turns.length,
    keepsByOccurrence: Array.from(tallies, (tally): OccurrenceTally => tally ?? { eligible: 0, keeps: 0 }),
  };
  const script: ScriptMetrics = {
    playedTurns: turns.length,
    builds,
    firstSightBuilds: count.firstSightBuilds,
    distinctClassesBuilt: new Set(ledger.scripts.map((s) => s.classId)).size,
    rebuilds: count.rebuilds,
    writesRefused: of('write-refused').length,
    reuseRuns: of('run').length,
    crossClassRunsRefused: of('run-refused').length,
    scriptRuns: executed.length,
    scriptReturns: executed.filter((turn) => turn.scriptReturned).length,
    scriptCorrect,
    scriptSuccessRate: executed.length > 0 ? scriptCorrect / executed.length : null,
    buildsCorrect: count.buildsCorrect,
    rawAnswers: answers.length,
    rawCorrect,
    rawAccuracy: answers.length > 0 ? rawCorrect / answers.length : null,
    creditedByScript: scriptCorrect,
    creditedByAnswer: rawCorrect,
    zeroBuild: builds === 0,
  };
  return { metrics, script };
}

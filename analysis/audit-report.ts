import { expandSweep } from '../core/sweep/expand-sweep.js';
import { sessionKey } from '../core/sweep/session-spec.js';
import { readManifest } from '../run-store/manifest.js';
import { countStates, readSessionStates, type SessionState } from '../run-store/session-states.js';
import { openRunStore } from '../run-store/open-run-store.js';
import type { SplitRole } from '../core/rungs/rung.js';
import { attemptKey, runKey, type AttemptRecord, type ReusedReply, type Transcript } from '../run-store/transcript.js';

/** One decision turn that needed more than one attempt, lost an attempt, ended unresolved, or reused a recorded reply. */
export interface AuditedTurn {
  readonly session: string;
  readonly t: number;
  /** A split agent's call: its planner's decision turn t, or its builder's model call t. */
  readonly role?: SplitRole;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly activityAttempt: number;
    readonly outcome: AttemptRecord['outcome'];
    readonly at: string;
    readonly latencyMs: number;
    readonly error?: string;
    /** Why the reply ended (end, tool-use, length, content-filter, other), where the provider said. */
    readonly stopReason?: AttemptRecord['stopReason'];
    /** This attempt re-asked the turn with the format reminder (empty-fence retry). */
    readonly reminded?: true;
    readonly tokens: number;
    /** The wait the provider asked for (retry-after), in ms. */
    readonly retryAfterMs?: number;
    /** The wait used before the next attempt, in ms. */
    readonly waitMs?: number;
    /** The provider asked for longer than maxRetryAfterSeconds; the cap was waited. */
    readonly waitCapped?: true;
    /** Throttled under an adaptive limit, retried outside the rerun rule's three attempts. */
    readonly throttled?: true;
  }[];
  /** Activity attempts that left no record: a worker died mid-call. */
  readonly lostAttempts: number;
  /** The turn's reply was recorded by one activity attempt and used by a later one (its worker died in between), not paid again. */
  readonly reused?: ReusedReply;
  readonly decision: string;
}

export interface AuditReport {
  readonly runDir: string;
  /** Sessions begun (with a transcript). */
  readonly sessions: number;
  /** Every session's state (run-store/session-states.ts). */
  readonly states: Readonly<Record<SessionState, number>>;
  readonly decisionTurns: number;
  readonly attempts: number;
  readonly retriedTurns: number;
  readonly unresolvedTurns: number;
  /** Unresolved turns whose reply stopped at the output limit before giving a decision. */
  readonly cutOffTurns: number;
  readonly lostAttempts: number;
  /** Turns whose recorded reply a retried activity used instead of calling the model again. */
  readonly reusedReplies: number;
  /** Attempts whose retry-after was longer than the cap (the cap was waited). */
  readonly cappedWaits: number;
  /** Throttled replies retried under an adaptive limit, outside the rerun rule's three attempts. */
  readonly throttledAttempts: number;
  readonly turns: readonly AuditedTurn[];
}

interface TurnDescription {
  readonly decision: string;
  readonly unresolved: boolean;
  readonly cutOff: boolean;
  readonly reused?: ReusedReply;
}

/**
 * What turn t decided (R3 and a split agent's builder: what model call t did,
 * and how its scripts ran), whether it was unresolved, and whether its reply was cut off.
 */
function describeTurn(transcript: Transcript, t: number, role: SplitRole | undefined): TurnDescription {
  const turn = role === 'builder' ? undefined : transcript.turns.find((candidate) => candidate.t === t);
  if (turn) {
    const { action, resolved, failure } = turn.decision;
    const cutOff = failure === 'cut-off';
    const why = cutOff ? 'cut off' : failure;
    return {
      decision: resolved ? action : `${action} (unresolved: ${why}${turn.detail ? `, ${turn.detail}` : ''})`,
      unresolved: !resolved,
      cutOff,
      ...(turn.reused && { reused: turn.reused }),
    };
  }
  // R3: t is the session's model call.
  const step = transcript.steps.find((candidate) => candidate.call === t);
  if (!step) return { decision: 'no decision recorded', unresolved: false, cutOff: false };
  const did = step.outcomes.map((outcome, index) => {
    const run = transcript.executions.get(runKey(step.call, index));
    const result = run ? (run.outcome.ok ? (run.correct ? ': correct' : ': wrong answer') : `: ${run.outcome.kind}`) : '';
    return `${outcome.kind}${'name' in outcome ? ` ${outcome.name}` : ''}${result}`;
  });
  const submitted = step.submitted ? ` (${step.submitted.correct ? 'correct' : 'wrong'})` : '';
  return {
    decision: `problem ${step.t}: ${did.join(', ') || (step.advanced === 'forced' ? 'no tool call, problem given up' : 'no tool call')}${submitted}`,
    unresolved: step.outcomes.length === 0,
    cutOff: false,
    ...(step.reused && { reused: step.reused }),
  };
}

/** Retries, unresolved and cut-off decisions per turn, from the transcripts (Temporal's history does not keep attempts). */
export async function auditRun(runDir: string): Promise<AuditReport> {
  const store = openRunStore(runDir);
  const manifest = await readManifest(store);
  const turns: AuditedTurn[] = [];
  let [sessions, decisionTurns, attempts, retriedTurns, unresolvedTurns, cutOffTurns, lostAttempts, reusedReplies, cappedWaits] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0,
  ];
  let throttledAttempts = 0;
  const specs = expandSweep(manifest.config);
  const states = countStates((await readSessionStates(store, specs)).map((reading) => reading.state));
  for (const spec of specs) {
    const transcript = await store.readTranscript(spec);
    if (!transcript.start) continue;
    sessions++;
    const byTurn = new Map<string, AttemptRecord[]>();
    for (const record of transcript.records) {
      if (record.type !== 'attempt') continue;
      const key = attemptKey(record.t, record.role);
      byTurn.set(key, [...(byTurn.get(key) ?? []), record]);
    }
    for (const records of byTurn.values()) {
      const { t, role } = records[0] as AttemptRecord;
      const { decision, unresolved, cutOff, reused } = describeTurn(transcript, t, role);
      decisionTurns++;
      attempts += records.length;
      const lost = Math.max(0, Math.max(...records.map((r) => r.activityAttempt)) - records.length);
      lostAttempts += lost;
      const retried = records.length > 1 || records.some((r) => r.outcome !== 'ok');
      if (retried) retriedTurns++;
      if (unresolved) unresolvedTurns++;
      if (cutOff) cutOffTurns++;
      if (reused) reusedReplies++;
      cappedWaits += records.filter((r) => r.waitCapped).length;
      throttledAttempts += records.filter((r) => r.throttled).length;
      if (!retried && !unresolved && lost === 0 && !reused) continue;
      turns.push({
        session: sessionKey(spec),
        t,
        ...(role && { role }),
        attempts: records.map((r) => ({
          attempt: r.attempt,
          activityAttempt: r.activityAttempt,
          outcome: r.outcome,
          at: r.at,
          latencyMs: r.latencyMs,
          ...(r.error && { error: r.error }),
          ...(r.stopReason && { stopReason: r.stopReason }),
          ...(r.reminder !== undefined && { reminded: true as const }),
          tokens: r.usage.inputTokens + r.usage.outputTokens,
          ...(r.retryAfterMs !== undefined && { retryAfterMs: r.retryAfterMs }),
          ...(r.waitMs !== undefined && { waitMs: r.waitMs }),
          ...(r.waitCapped && { waitCapped: true as const }),
          ...(r.throttled && { throttled: true as const }),
        })),
        lostAttempts: lost,
        ...(reused && { reused }),
        decision,
      });
    }
  }
  return {
    runDir,
    sessions,
    states,
    decisionTurns,
    attempts,
    retriedTurns,
    unresolvedTurns,
    cutOffTurns,
    lostAttempts,
    reusedReplies,
    cappedWaits,
    throttledAttempts,
    turns,
  };
}

import type { Termination } from '../core/session/termination.js';
import type { Progress } from '../core/session/turn-protocol.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { SessionTally } from '../core/sweep/session-ledger.js';
import type { CostCaps } from '../core/sweep/expand-sweep.js';
import type { ReplaySetting, SweepConfig } from '../core/sweep/sweep-config.js';

/*
 * The activities the workflows call, as contracts: the workflows proxy these
 * types and the activities implement them, so neither imports the other.
 * Inputs and results are compact on purpose: prompts, replies, code and
 * attempts stay in the run store (claim check), and history stays small.
 */

/** What prepareSession needs: the run directory and the session's settings, which it records in the transcript's opening record. */
export interface SessionSetup {
  readonly runDir: string;
  readonly spec: SessionSpec;
}

/**
 * A prepared session as its later activities find it: the run directory and
 * the session's folder in it (sessionDirName). The settings are read back from
 * the opening record, so the hundreds of calls of an R3 session do not each
 * carry them into history.
 */
export interface SessionRef {
  readonly runDir: string;
  readonly session: string;
}

/** The model's next call of a session, from the progress before it (core/session/turn-protocol.ts). */
export interface StepInput extends SessionRef {
  readonly progress: Progress;
  /** The caps of the invocation the session runs under. */
  readonly caps: CostCaps;
  /** Answer the call from a recorded run's reply (a replayed sweep); absent for a live call. */
  readonly replay?: ReplaySetting;
}

export type StepResult =
  /** The progress after the reply, and the positions in the reply of the accepted run_script calls, to run in order. */
  | { readonly kind: 'step'; readonly progress: Progress; readonly runs: readonly number[] }
  /** A cap was reached before the call, or the call failed mechanically. */
  | { readonly kind: 'stopped'; readonly reason: Termination }
  /** The call ended the session (the turn protocol's end): its summary and end record are written (finishSession). */
  | { readonly kind: 'finished'; readonly outcome: SessionOutcome };

export interface ModelActivities {
  /**
   * One model call under the rerun rules, recorded before it is returned; a
   * call already on record, or a reply on record whose step is not, is used
   * as recorded and never paid again.
   */
  takeStep(input: StepInput): Promise<StepResult>;
}

/** One run_script call: its model call and its position in the reply. */
export interface ScriptRunInput extends SessionRef {
  readonly call: number;
  readonly index: number;
}

export interface ScriptActivities {
  /** Runs the script in the sandbox and records its outcome; a failing script is an outcome, not a failure. */
  runScript(input: ScriptRunInput): Promise<void>;
}

export interface FinishInput extends SessionRef {
  readonly termination: Termination;
}

/** What a session workflow returns: compact, so the sweep's history stays small. */
export interface SessionOutcome {
  readonly sessionKey: string;
  readonly termination: Termination;
  readonly utility: number;
  readonly optimum: number;
  readonly commitments: number;
  readonly unresolved: number;
}

export interface StoreActivities {
  /** Writes the stream and the session's opening record if not there yet, and returns the class sequence, one character each. */
  prepareSession(input: SessionSetup): Promise<{ readonly classes: string; readonly streamHash: string }>;
  /** Scores the session from its transcript, writes its summary and end record. */
  finishSession(input: FinishInput): Promise<SessionOutcome>;
  /** Records that a begun session was cancelled (a cancel of its sweep), in its transcript and its summary; one not begun or ended records nothing. */
  recordCancelled(input: SessionRef): Promise<void>;
  /** Indices (in expandSweep order) of sessions to run: not finished (session-states.ts, needsRun). */
  unfinishedSessions(input: { readonly runDir: string; readonly config: SweepConfig }): Promise<number[]>;
}

/** A sweep's sessions to run, as its keeper gets them. */
export interface KeeperInput {
  readonly runDir: string;
  /** The sweep's name: the sessions' SweepId search attribute. */
  readonly sweepId: string;
  /** The sweep workflow's id: the sessions' ids begin with it (protocol/session-workflow.ts). */
  readonly sweepWorkflowId: string;
  readonly config: SweepConfig;
  /** Indices (in expandSweep order) of the sessions to run, in the order to start them. */
  readonly sessions: readonly number[];
  /** Ask for each session's first workflow task on the keeper's own worker (workflows/sweep-progress.ts, `eagerStart`). */
  readonly eagerStart: boolean;
}

/** The activity type of the keeper, as a sweep's description names it (its heartbeat carries the sweep's progress). */
export const KEEPER_ACTIVITY_TYPE = 'keepWindow';

export interface SweepActivities {
  /**
   * Runs the sessions as workflows of their own, at most the sweep's window
   * at a time, and waits for every one to end; cancelled, it cancels the
   * sessions it started and waits for them.
   */
  keepWindow(input: KeeperInput): Promise<SessionTally>;
}

import { ApplicationFailure } from '@temporalio/activity';
import { nextMove, protocolRules, type AskMove, type Progress, type ProtocolRules } from '../core/session/turn-protocol.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { CostCaps } from '../core/sweep/expand-sweep.js';
import type { ReplaySetting } from '../core/sweep/sweep-config.js';
import type { SessionRef, StepInput } from '../protocol/activities.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runParts } from '../run-store/run-layout.js';
import type { RunStore } from '../run-store/run-store.js';
import { ensureStream } from '../run-store/stream-store.js';
import type { Transcript } from '../run-store/transcript.js';

/** A session's stream, its class sequence and its rules, as the activities use them. */
export interface SessionContext {
  readonly stream: Stream;
  readonly classes: number[];
  readonly rules: ProtocolRules;
}

export async function loadSessionContext(store: RunStore, spec: SessionSpec): Promise<SessionContext> {
  const stream = await ensureStream(store, spec);
  const classes = classSequence(stream);
  return { stream, classes, rules: protocolRules(spec, classes) };
}

/** A prepared session's transcript so far and the settings its opening record holds. */
export interface OpenSession {
  readonly store: RunStore;
  /** The session's folder name (sessionDirName). */
  readonly session: string;
  readonly spec: SessionSpec;
  readonly transcript: Transcript;
}

/** A call the session's records do not line up with: a bug or a mixed-up run directory, never retried. */
export const outOfStep = (message: string) => ApplicationFailure.nonRetryable(message, 'SessionOutOfStep');

export async function openSession({ runDir, session }: SessionRef): Promise<OpenSession> {
  const store = openRunStore(runDir);
  const transcript = await store.readTranscript(session);
  if (!transcript.start) throw outOfStep(`${store.where(runParts.session(session))}: no opening record (the session was never prepared)`);
  return { store, session, spec: transcript.start.spec, transcript };
}

/** Everything a model call of a session needs: its context, its transcript so far and the call the protocol asks for. */
export interface CallSession extends OpenSession, SessionContext {
  readonly progress: Progress;
  readonly move: AskMove;
  /** The recorded run that answers the call instead of the live model, if the sweep is a replay. */
  readonly replay?: ReplaySetting;
  readonly caps: CostCaps;
}

export async function loadCallSession({ progress, replay, caps, ...ref }: StepInput): Promise<CallSession> {
  const session = await openSession(ref);
  const context = await loadSessionContext(session.store, session.spec);
  const move = nextMove(progress, context.rules);
  if (move.kind === 'done') throw outOfStep(`the session is over (${move.reason}): no model call comes next`);
  return { ...session, ...context, progress, move, caps, ...(replay && { replay }) };
}

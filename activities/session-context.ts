import { ApplicationFailure } from '@temporalio/activity';
import { nextMove, protocolRules, type AskMove, type Progress, type ProtocolRules } from '../core/session/turn-protocol.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { SessionRef } from '../protocol/activities.js';
import { runLayout } from './run-store/run-layout.js';
import { ensureStream } from './run-store/stream-store.js';
import { readTranscript, type Transcript } from './run-store/transcript.js';

/** A session's stream, its class sequence and its rules, as the activities use them. */
export interface SessionContext {
  readonly stream: Stream;
  readonly classes: number[];
  readonly rules: ProtocolRules;
}

export async function loadSessionContext(runDir: string, spec: SessionSpec): Promise<SessionContext> {
  const stream = await ensureStream(runDir, spec);
  const classes = classSequence(stream);
  return { stream, classes, rules: protocolRules(spec, classes) };
}

/** A prepared session's transcript so far and the settings its opening record holds. */
export interface OpenSession {
  readonly runDir: string;
  readonly spec: SessionSpec;
  readonly transcriptPath: string;
  readonly transcript: Transcript;
}

/** A call the session's records do not line up with: a bug or a mixed-up run directory, never retried. */
export const outOfStep = (message: string) => ApplicationFailure.nonRetryable(message, 'SessionOutOfStep');

export async function openSession({ runDir, session }: SessionRef): Promise<OpenSession> {
  const transcriptPath = runLayout.transcript(runDir, session);
  const transcript = await readTranscript(transcriptPath);
  if (!transcript.start) throw outOfStep(`${transcriptPath}: no opening record (the session was never prepared)`);
  return { runDir, spec: transcript.start.spec, transcriptPath, transcript };
}

/** Everything a model call of a session needs: its context, its transcript so far and the call the protocol asks for. */
export interface CallSession extends OpenSession, SessionContext {
  readonly progress: Progress;
  readonly move: AskMove;
}

export async function loadCallSession(ref: SessionRef, progress: Progress): Promise<CallSession> {
  const session = await openSession(ref);
  const context = await loadSessionContext(session.runDir, session.spec);
  const move = nextMove(progress, context.rules);
  if (move.kind === 'done') throw outOfStep(`the session is over (${move.reason}): no model call comes next`);
  return { ...session, ...context, progress, move };
}

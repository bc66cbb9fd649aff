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

/** Everything a model call of a session needs: its context, its transcript so far and the call the protocol asks for. */
export interface CallSession extends SessionRef, SessionContext {
  readonly transcriptPath: string;
  readonly transcript: Transcript;
  readonly progress: Progress;
  readonly move: AskMove;
}

/** A call the session's records do not line up with: a bug or a mixed-up run directory, never retried. */
export const outOfStep = (message: string) => ApplicationFailure.nonRetryable(message, 'SessionOutOfStep');

export async function loadCallSession({ runDir, spec }: SessionRef, progress: Progress): Promise<CallSession> {
  const context = await loadSessionContext(runDir, spec);
  const move = nextMove(progress, context.rules);
  if (move.kind === 'done') throw outOfStep(`the session is over (${move.reason}): no model call comes next`);
  const transcriptPath = runLayout.transcript(runDir, spec);
  return { runDir, spec, ...context, transcriptPath, transcript: await readTranscript(transcriptPath), progress, move };
}

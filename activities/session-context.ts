import { FAMILY_NAMES } from '../core/families/family.js';
import type { SessionSetting } from '../core/session/run-session.js';
import { classSequence, type Stream } from '../core/stream/stream.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { ensureStream } from './run-store/stream-store.js';

/** A session's stream, its class sequence and its rules, as the activities use them. */
export interface SessionContext {
  readonly stream: Stream;
  readonly classes: number[];
  readonly setting: SessionSetting;
}

export async function loadSessionContext(runDir: string, spec: SessionSpec): Promise<SessionContext> {
  const stream = await ensureStream(runDir, spec);
  return {
    stream,
    classes: classSequence(stream),
    setting: { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length },
  };
}

import { ApplicationFailure } from '@temporalio/activity';
import { matchesGold } from '../core/scripts/answer-match.js';
import { withHeartbeat } from './heartbeat.js';
import { executes } from '../core/scripts/script-ledger.js';
import type { SessionRef } from './store-activities.js';
import { runLayout } from './run-store/run-layout.js';
import { appendRecord, readTranscript, type ExecutionOutcome, type Transcript } from './run-store/transcript.js';
import type { ScriptSandbox } from './sandbox/script-sandbox.js';
import { loadSessionContext } from './session-context.js';

export interface ScriptRunInput extends SessionRef {
  /** The R3 turn whose write or run executes on its item. */
  readonly t: number;
}

/** The source of a script, from the turn that wrote it. */
function codeOf(transcript: Transcript, scriptId: string): string {
  for (const turn of transcript.scriptTurns) {
    if (turn.action.kind === 'write' && turn.action.scriptId === scriptId) return turn.action.code;
  }
  throw ApplicationFailure.nonRetryable(`no recorded write of script ${scriptId}`, 'SessionOutOfStep');
}

/**
 * The sandbox activity, hosted only by the sandbox worker process: runs the
 * script of turn t's write or run on the item's inputs and records the
 * outcome and whether it is the gold answer. A failing script is an outcome,
 * never an activity failure. If a previous attempt started the script and
 * never recorded its outcome, the worker died running it: that is recorded
 * as 'worker-lost' rather than running the script again.
 */
export function createScriptActivities(sandbox: ScriptSandbox) {
  return {
    async executeScript({ runDir, spec, t }: ScriptRunInput): Promise<{ credited: boolean }> {
      const path = runLayout.transcript(runDir, spec);
      const transcript = await readTranscript(path);
      const done = transcript.executions.get(t);
      if (done) return { credited: done.correct };
      const turn = transcript.scriptTurns.find((recorded) => recorded.t === t);
      const action = turn?.action;
      if (!action || !executes(action.kind) || !('scriptId' in action)) {
        throw ApplicationFailure.nonRetryable(`turn ${t} has no script to run`, 'SessionOutOfStep');
      }
      const code = action.kind === 'write' ? action.code : codeOf(transcript, action.scriptId);
      const item = (await loadSessionContext(runDir, spec)).stream.items[t - 1];
      if (!item) throw ApplicationFailure.nonRetryable(`turn ${t} is past the stream`, 'SessionOutOfStep');
      let outcome: ExecutionOutcome;
      if (transcript.executionsStarted.has(t)) {
        outcome = { ok: false, kind: 'worker-lost', error: 'the sandbox worker process was lost while this script ran', ms: 0, logs: '' };
      } else {
        await appendRecord(path, { type: 'execution-start', at: new Date().toISOString(), t });
        outcome = await withHeartbeat(() =>
          sandbox.run(code, item.inputs, { timeoutMs: spec.script.timeoutMs, memoryMb: spec.script.memoryMb }),
        );
      }
      const correct = outcome.ok && matchesGold(outcome.value, item.answer);
      await appendRecord(path, { type: 'execution', at: new Date().toISOString(), t, scriptId: action.scriptId, outcome, correct });
      return { credited: correct };
    },
  };
}

export type ScriptActivities = ReturnType<typeof createScriptActivities>;

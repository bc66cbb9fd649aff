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
 * Runs of a script on one item, counting the first: a run whose process was
 * lost (the sandbox worker killed or out of memory under it) is mechanical and
 * runs again on a fresh process, up to this many runs in all. Only a script
 * that takes the process down on every one of them is charged with it.
 */
export const SCRIPT_RUNS_BEFORE_WORKER_LOST = 3;

/**
 * The sandbox activity, hosted only by the sandbox worker process: runs the
 * script of turn t's write or run on the item's inputs and records the
 * outcome and whether it is the gold answer. A failing script is an outcome,
 * never an activity failure. Each run is preceded by an execution-start
 * record; a retry that finds starts without an outcome knows the process was
 * lost under them and runs the script again, until SCRIPT_RUNS_BEFORE_WORKER_LOST
 * runs were lost: then the loss is the script's outcome, 'worker-lost'.
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
      const lost = transcript.records.filter((record) => record.type === 'execution-start' && record.t === t).length;
      let outcome: ExecutionOutcome;
      if (lost >= SCRIPT_RUNS_BEFORE_WORKER_LOST) {
        const error = `the sandbox worker process was lost each of the ${lost} times this script ran`;
        outcome = { ok: false, kind: 'worker-lost', error, ms: 0, logs: '' };
      } else {
        await appendRecord(path, { type: 'execution-start', at: new Date().toISOString(), t });
        outcome = await withHeartbeat(() =>
          sandbox.run(code, item.inputs, { timeoutMs: spec.script.timeoutMs, memoryMb: spec.script.memoryMb }),
        );
        // An earlier attempt, given up for lost but still alive, may have recorded this run meanwhile: one outcome per turn.
        const meanwhile = (await readTranscript(path)).executions.get(t);
        if (meanwhile) return { credited: meanwhile.correct };
      }
      const correct = outcome.ok && matchesGold(outcome.value, item.answer);
      await appendRecord(path, { type: 'execution', at: new Date().toISOString(), t, scriptId: action.scriptId, outcome, correct });
      return { credited: correct };
    },
  };
}

export type ScriptActivities = ReturnType<typeof createScriptActivities>;

import { ApplicationFailure } from '@temporalio/activity';
import { matchesGold } from '../core/scripts/answer-match.js';
import { withHeartbeat } from './heartbeat.js';
import { KeyedQueue } from './keyed-queue.js';
import type { ScriptActivities, ScriptRunInput } from '../protocol/activities.js';
import { callsOfStep, runKey, type ExecutionOutcome, type Transcript } from '../run-store/transcript.js';
import type { ScriptSandbox } from './sandbox/script-sandbox.js';
import { loadSessionContext, openSession } from './session-context.js';

/** The source a run uses: the last accepted write of that name before the run_script call. */
function codeOf(transcript: Transcript, name: string, call: number, index: number): string {
  let code: string | undefined;
  for (const step of transcript.steps) {
    if (step.call > call) break;
    const calls = callsOfStep(step);
    step.outcomes.forEach((outcome, i) => {
      const write = calls[i];
      if (outcome.kind === 'written' && write?.tool === 'write_script' && write.name === name && (step.call < call || i < index))
        code = write.code;
    });
  }
  if (code === undefined)
    throw ApplicationFailure.nonRetryable(`no recorded write of script '${name}' before call ${call}`, 'SessionOutOfStep');
  return code;
}

/**
 * Runs of a script for one run_script call, counting the first: a run whose
 * process was lost (the sandbox worker killed or out of memory under it) is
 * mechanical and runs again on a fresh process, up to this many runs in all.
 * Only a script that takes the process down on every one of them is charged with it.
 */
export const SCRIPT_RUNS_BEFORE_WORKER_LOST = 3;

/**
 * The sandbox activity, hosted only by the sandbox worker process: runs the
 * script a run_script call names on the inputs the model passed, and records
 * the outcome and whether it is the problem's gold answer. A failing script is
 * an outcome, never an activity failure. Each run is preceded by an
 * execution-start record; a retry that finds starts without an outcome knows
 * the process was lost under them and runs the script again, until
 * SCRIPT_RUNS_BEFORE_WORKER_LOST runs were lost: then the loss is the
 * script's outcome, 'worker-lost'.
 */
export function createScriptActivities(sandbox: ScriptSandbox): ScriptActivities {
  // Attempts of one run that overlap in this process (one given up for lost by the server while still alive) take
  // turns, so the later one finds the earlier one's outcome on record instead of writing a second.
  const runs = new KeyedQueue();
  return {
    runScript: (input) => runs.run(`${input.runDir}\0${input.session}\0${input.call}\0${input.index}`, () => runOnce(sandbox, input)),
  };
}

async function runOnce(sandbox: ScriptSandbox, { runDir, session, call, index }: ScriptRunInput): Promise<void> {
  const { store, spec, transcript } = await openSession({ runDir, session });
  if (transcript.executions.has(runKey(call, index))) return;
  const step = transcript.steps.find((recorded) => recorded.call === call);
  const outcomeKind = step?.outcomes[index]?.kind;
  const run = step ? callsOfStep(step)[index] : undefined;
  if (!step || outcomeKind !== 'run' || run?.tool !== 'run_script')
    throw ApplicationFailure.nonRetryable(`call ${call} has no script run at position ${index}`, 'SessionOutOfStep');
  const code = codeOf(transcript, run.name, call, index);
  const item = (await loadSessionContext(store, spec)).stream.items[step.t - 1];
  if (!item) throw ApplicationFailure.nonRetryable(`problem ${step.t} is past the stream`, 'SessionOutOfStep');
  const lost = transcript.executionStarts.get(runKey(call, index)) ?? 0;
  let outcome: ExecutionOutcome;
  if (lost >= SCRIPT_RUNS_BEFORE_WORKER_LOST) {
    const error = `the sandbox worker process was lost each of the ${lost} times this script ran`;
    outcome = { ok: false, kind: 'worker-lost', error, ms: 0, logs: '' };
  } else {
    await store.appendTranscript(session, { type: 'execution-start', at: new Date().toISOString(), call, index });
    outcome = await withHeartbeat(() =>
      sandbox.run(code, run.inputs, { timeoutMs: spec.script.timeoutMs, memoryMb: spec.script.memoryMb }),
    );
    // An earlier attempt, given up for lost but still alive, may have recorded this run meanwhile: one outcome per call.
    if ((await store.readTranscript(session)).executions.has(runKey(call, index))) return;
  }
  const correct = outcome.ok && matchesGold(outcome.value, item.answer);
  await store.appendTranscript(session, {
    type: 'execution',
    at: new Date().toISOString(),
    call,
    index,
    t: step.t,
    name: run.name,
    outcome,
    correct,
  });
}

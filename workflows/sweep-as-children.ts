import { ApplicationFailure, continueAsNew, executeChild, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { sessionKey } from '../core/sweep/session-spec.js';
import { costCapsOf } from '../core/sweep/expand-sweep.js';
import { endingOf } from '../core/session/termination.js';
import { runStoreFailureIn } from '../protocol/failures.js';
import { sessionSearchAttributes } from '../protocol/search-attributes.js';
import { sessionWorkflowId } from '../protocol/session-workflow.js';
import { sessionWorkflow } from './session-workflow.js';
import { progressQuery, sweepStopped, type SweepInput, type SweepProgress } from './sweep-progress.js';

/**
 * The sweep as versions before top-level sessions ran it, kept so that a sweep
 * begun by one of them (its history holds child sessions) replays and runs to
 * its end: sessions as children with deterministic ids, at most `window` at
 * a time, continuing as new after letting the running children finish. The
 * run after a continue-as-new starts its sessions as top-level workflows.
 */
export async function sweepAsChildren(
  input: SweepInput,
  specs: readonly SessionSpec[],
  pending: readonly number[],
): Promise<SweepProgress> {
  const { runDir, config } = input;
  const progress = {
    total: specs.length,
    finished: specs.length - pending.length,
    stopped: 0,
    cancelled: 0,
    running: 0,
    mechanicalFailures: 0,
    failed: 0,
  };
  setHandler(progressQuery, () => ({ ...progress }));

  const prefix = workflowInfo().workflowId;
  let fatal: ApplicationFailure | undefined;
  const runOne = async (index: number) => {
    const spec = specs[index];
    if (!spec) return;
    progress.running++;
    try {
      const outcome = await executeChild(sessionWorkflow, {
        workflowId: sessionWorkflowId(prefix, spec),
        args: [
          {
            runDir,
            spec,
            caps: costCapsOf(config),
            heartbeatSeconds: config.heartbeatSeconds,
            modelCalls: config.modelCalls,
            ...(config.replay && { replay: config.replay }),
          },
        ],
        typedSearchAttributes: sessionSearchAttributes(input.sweepId, spec),
      });
      const ending = endingOf(outcome.termination);
      if (ending === 'finished') progress.finished++;
      if (ending === 'stopped') progress.stopped++;
      if (ending === 'failed') progress.mechanicalFailures++;
    } catch (error) {
      progress.failed++;
      fatal ??= runStoreFailureIn(error);
      log.error('session workflow failed', { session: sessionKey(spec), error: String(error) });
    } finally {
      progress.running--;
    }
  };

  const inFlight = new Set<Promise<void>>();
  for (const index of pending) {
    while (inFlight.size >= config.window && !fatal) await Promise.race(inFlight);
    if (fatal) throw sweepStopped(fatal);
    const run: Promise<void> = runOne(index).finally(() => inFlight.delete(run));
    inFlight.add(run);
    if (workflowInfo().continueAsNewSuggested) {
      await Promise.all(inFlight);
      if (fatal) throw sweepStopped(fatal);
      return continueAsNew<(input: SweepInput) => Promise<SweepProgress>>(input);
    }
  }
  while (inFlight.size > 0 && !fatal) await Promise.race(inFlight);
  if (fatal) throw sweepStopped(fatal);
  return { ...progress };
}

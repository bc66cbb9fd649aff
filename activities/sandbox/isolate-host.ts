/*
 * The isolate process: where scripts run, one at a time, each in a fresh
 * context of an isolate kept between runs (warm) or made for the run. Its own
 * CPU time is then the run's, which is how the CPU time limit is counted; its
 * parent (IsolateProcess) ends it after a run a limit stopped, so an isolate
 * thread that cannot be stopped goes with it. Started with --no-node-snapshot
 * (isolated-vm needs it on Node 20+); ends itself when its parent's IPC channel
 * closes.
 */
import { SandboxIsolate } from './sandbox-isolate.js';
import { superviseRun } from './supervised-run.js';
import type { HostReply, HostRequest } from './isolate-process.js';

/** A warm isolate whose heap is above this share of its limit after a run is replaced. */
const HEAP_REUSE_SHARE = 0.5;

let warmIsolate: SandboxIsolate | undefined;

async function serve({ code, inputsJson, limits, warm }: HostRequest): Promise<HostReply> {
  const isolate = warmIsolate?.memoryMb === limits.memoryMb ? warmIsolate : new SandboxIsolate(limits.memoryMb);
  if (isolate !== warmIsolate) warmIsolate?.dispose();
  warmIsolate = undefined;
  try {
    const run = await superviseRun(isolate, code, inputsJson, limits);
    if (warm && (await heapFits(isolate))) warmIsolate = isolate;
    else isolate.dispose();
    return { run };
  } catch (error) {
    isolate.dispose();
    return { bug: error instanceof Error ? error.message : String(error) };
  }
}

async function heapFits(isolate: SandboxIsolate): Promise<boolean> {
  if (!isolate.usable) return false;
  return (await isolate.heapBytes()) < isolate.memoryMb * 1024 * 1024 * HEAP_REUSE_SHARE;
}

/*
 * A parent that is gone (its command ended while this process started) closed the channel: the send's error goes
 * to its callback, not to an 'error' event that would crash this process with a stack trace on the terminal; the
 * disconnect below ends it.
 */
const toParent = (message: HostReply | 'ready') => process.send?.(message, undefined, {}, () => undefined);

process.on('message', (request: HostRequest) => void serve(request).then(toParent));
// Ended hard: a clean exit could wait forever on an isolate thread that cannot be stopped.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
toParent('ready');

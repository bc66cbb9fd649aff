/*
 * Workflows for bench/bare-workflows.ts: the least a session could cost the
 * Temporal server, with nothing of the benchmark in them. `bare` runs `calls`
 * local activities that each wait `waitMs`; `parent` starts `count` of them as
 * children, all at once; `group` runs `sessions` sessions' worth of activities
 * (three each: prepare, one batch of calls, finish) in one workflow.
 */
import { executeChild, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';

interface BareActivities {
  wait(ms: number): Promise<void>;
}

const { wait } = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

export async function bare(calls: number, waitMs: number): Promise<void> {
  for (let i = 0; i < calls; i++) await wait(waitMs);
}

export async function parent(count: number, calls: number, waitMs: number): Promise<void> {
  const prefix = workflowInfo().workflowId;
  await Promise.all(Array.from({ length: count }, (_, i) => executeChild(bare, { workflowId: `${prefix}/${i}`, args: [calls, waitMs] })));
}

export async function group(sessions: number): Promise<void> {
  for (let i = 0; i < 3 * sessions; i++) await wait(0);
}

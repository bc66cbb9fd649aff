/*
 * Bare workflows on a fresh embedded dev server: what a workflow per session
 * costs the server and the worker before the benchmark does anything
 * (bench/bare-workflows.ts prints every shape; bench/scale.ts takes the
 * client-started one as the floor under a session's CPU, in the same run).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { startDevServer } from '../infra/dev-server.js';
import { freeServerPort } from '../infra/ports.js';
import { cpuSeconds } from '../infra/process-stats.js';

/**
 * The shapes measured (bench/bare-workflows/workflows.ts): each workflow one
 * local activity of `waitMs` — children of one parent, started by a client of
 * their own, or eagerly started by the worker's own client (as a sweep's
 * keeper starts its sessions on the embedded server) — or sessions grouped.
 */
export type BareShape = 'children' | 'client' | 'eager' | 'group-8' | 'group-32';

export interface BareCost {
  /** CPU per workflow (per session for a group), ms. */
  readonly serverMs: number;
  readonly processMs: number;
  /** First to last start time, s. */
  readonly startedOverSeconds: number;
  /** From the first start asked to the last workflow's local activity begun, s (null for the grouped shapes). */
  readonly begunOverSeconds: number | null;
}

let bundle: Promise<{ code: string }> | undefined;
const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./bare-workflows/workflows.js', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  }));

const topLevel = async (client: Client, count: number, waitMs: number, requestEagerStart: boolean) => {
  const handles = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.workflow.start('bare', { taskQueue: 'bare', workflowId: `top/${i}`, args: [1, waitMs], requestEagerStart }),
    ),
  );
  await Promise.all(handles.map((handle) => handle.result()));
};

const run: Record<BareShape, (client: Client, count: number, waitMs: number) => Promise<unknown>> = {
  children: (client, count, waitMs) =>
    client.workflow.execute('parent', { taskQueue: 'bare', workflowId: 'parent', args: [count, 1, waitMs] }),
  client: (client, count, waitMs) => topLevel(client, count, waitMs, false),
  eager: (client, count, waitMs) => topLevel(client, count, waitMs, true),
  'group-8': (client, count) => groups(client, count, 8),
  'group-32': (client, count) => groups(client, count, 32),
};

const groups = (client: Client, count: number, perWorkflow: number) =>
  Promise.all(
    Array.from({ length: count / perWorkflow }, (_, i) =>
      client.workflow.execute('group', { taskQueue: 'bare', workflowId: `group/${i}`, args: [perWorkflow] }),
    ),
  );

/** `count` workflows of a shape, all in flight together, on a fresh dev server and a worker sized for them. */
export async function measureBare(shape: BareShape, count: number, waitMs = 4000): Promise<BareCost> {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'allocbench-bare-')), 'dev.sqlite');
  const server = await startDevServer({ dbFile, port: await freeServerPort() });
  const pid = Number(readFileSync(`${dbFile}.pid`, 'utf8'));
  const serverCpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  let lastBegun: number | undefined;
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: 'bare',
    workflowBundle: await workflowBundle(),
    activities: {
      wait: (ms: number) => {
        if (ms > 0) lastBegun = Date.now(); // the warm-up and the grouped shapes wait 0
        return new Promise<void>((resolve) => setTimeout(resolve, ms));
      },
    },
    maxConcurrentWorkflowTaskExecutions: count + 34,
    maxCachedWorkflows: count + 34,
    maxConcurrentWorkflowTaskPolls: 32,
    maxConcurrentLocalActivityExecutions: count + 2,
  });
  const running = worker.run();
  // An eager start needs the client on the worker's own connection; the others start through a connection of their own.
  const client = new Client({ connection: shape === 'eager' ? nativeConnection : connection });
  try {
    await client.workflow.execute('bare', { taskQueue: 'bare', workflowId: 'warm-up', args: [1, 0] });
    const [server0, process0, asked] = [serverCpu(), cpuSeconds().self, Date.now()];
    await run[shape](client, count, waitMs);
    const [server1, process1] = [serverCpu(), cpuSeconds().self];
    const starts: number[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType="bare" AND WorkflowId!="warm-up"` })) {
      starts.push(execution.startTime.getTime());
    }
    const startedOverSeconds = starts.length > 0 ? (Math.max(...starts) - Math.min(...starts)) / 1000 : 0;
    return {
      serverMs: (1000 * (server1 - server0)) / count,
      processMs: (1000 * (process1 - process0)) / count,
      startedOverSeconds,
      begunOverSeconds: lastBegun === undefined ? null : (lastBegun - asked) / 1000,
    };
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

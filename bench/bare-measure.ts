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

/** The shapes measured (bench/bare-workflows/workflows.ts): each workflow one local activity of `waitMs`, or sessions grouped. */
export type BareShape = 'children' | 'client' | 'group-8' | 'group-32';

export interface BareCost {
  /** CPU per workflow (per session for a group), ms. */
  readonly serverMs: number;
  readonly processMs: number;
  /** First to last start time, s. */
  readonly startedOverSeconds: number;
}

let bundle: Promise<{ code: string }> | undefined;
const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./bare-workflows/workflows.js', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  }));

const run: Record<BareShape, (client: Client, count: number, waitMs: number) => Promise<unknown>> = {
  children: (client, count, waitMs) =>
    client.workflow.execute('parent', { taskQueue: 'bare', workflowId: 'parent', args: [count, 1, waitMs] }),
  client: async (client, count, waitMs) => {
    const handles = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.workflow.start('bare', { taskQueue: 'bare', workflowId: `top/${i}`, args: [1, waitMs] }),
      ),
    );
    await Promise.all(handles.map((handle) => handle.result()));
  },
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
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: 'bare',
    workflowBundle: await workflowBundle(),
    activities: { wait: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) },
    maxConcurrentWorkflowTaskExecutions: count + 34,
    maxCachedWorkflows: count + 34,
    maxConcurrentWorkflowTaskPolls: 32,
    maxConcurrentLocalActivityExecutions: count + 2,
  });
  const running = worker.run();
  const client = new Client({ connection });
  try {
    await client.workflow.execute('bare', { taskQueue: 'bare', workflowId: 'warm-up', args: [1, 0] });
    const [server0, process0] = [serverCpu(), cpuSeconds().self];
    await run[shape](client, count, waitMs);
    const [server1, process1] = [serverCpu(), cpuSeconds().self];
    const starts: number[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType="bare" AND WorkflowId!="warm-up"` })) {
      starts.push(execution.startTime.getTime());
    }
    const startedOverSeconds = starts.length > 0 ? (Math.max(...starts) - Math.min(...starts)) / 1000 : 0;
    return { serverMs: (1000 * (server1 - server0)) / count, processMs: (1000 * (process1 - process0)) / count, startedOverSeconds };
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

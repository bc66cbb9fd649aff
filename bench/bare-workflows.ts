/*
 * Bare workflows on the embedded dev server (npm run bench:bare [-- <workflows, default 512>]):
 * what a workflow per session costs the server and the worker before the
 * benchmark does anything, and how fast the server starts them — the floor
 * under bench:scale's CPU per session and its ramp at large windows. Each
 * configuration runs on a fresh dev server with the same tuning as a sweep's:
 *   - children of one parent, all started at once, each one local activity
 *     waiting 4 s (so they are all in flight together, as a sweep's are);
 *   - the same started by a client, with no parent;
 *   - sessions grouped 8 and 32 to a workflow, three local activities each
 *     (a session's preparation, a batch of calls, its end).
 * Printed: the server's and this process's CPU per workflow or per session,
 * and for the first two how long the starts took (first to last start time).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../infra/dev-server.js';
import { freePort } from '../infra/ports.js';
import { cpuSeconds } from './process-stats.js';

const count = Number(process.argv[2] ?? 512);
Runtime.install({ logger: new DefaultLogger('ERROR') });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./bare-workflows/workflows.js', import.meta.url)),
  logger: new DefaultLogger('WARN'),
});

/** A fresh dev server and a worker sized for `count` workflows in flight; runs `work` and returns CPU per `per` units. */
async function measure(per: number, work: (client: Client) => Promise<void>) {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'allocbench-bare-')), 'dev.sqlite');
  const server = await startDevServer({ dbFile, port: await freePort() });
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
    workflowBundle,
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
    await work(client);
    const [server1, process1] = [serverCpu(), cpuSeconds().self];
    const starts: number[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType="bare" AND WorkflowId!="warm-up"` })) {
      starts.push(execution.startTime.getTime());
    }
    const spread = starts.length > 0 ? (Math.max(...starts) - Math.min(...starts)) / 1000 : 0;
    return { serverMs: (1000 * (server1 - server0)) / per, processMs: (1000 * (process1 - process0)) / per, spread };
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

console.log(`Bare workflows on the dev server · node ${process.version} · ${count} at a time`);
const line = (what: string, unit: string, r: { serverMs: number; processMs: number; spread: number }, started: boolean) =>
  console.log(
    `  ${what.padEnd(34)} server ${r.serverMs.toFixed(1)} ms, this process ${r.processMs.toFixed(1)} ms per ${unit}` +
      (started ? `; started over ${r.spread.toFixed(1)} s` : ''),
  );
line(
  'children of one parent',
  'workflow',
  await measure(count, (client) => client.workflow.execute('parent', { taskQueue: 'bare', workflowId: 'parent', args: [count, 1, 4000] })),
  true,
);
line(
  'started by a client',
  'workflow',
  await measure(count, async (client) => {
    const handles = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.workflow.start('bare', { taskQueue: 'bare', workflowId: `top/${i}`, args: [1, 4000] }),
      ),
    );
    await Promise.all(handles.map((handle) => handle.result()));
  }),
  true,
);
for (const perWorkflow of [8, 32]) {
  line(
    `${perWorkflow} sessions to a workflow`,
    'session',
    await measure(count, (client) =>
      Promise.all(
        Array.from({ length: count / perWorkflow }, (_, i) =>
          client.workflow.execute('group', { taskQueue: 'bare', workflowId: `group/${i}`, args: [perWorkflow] }),
        ),
      ).then(() => undefined),
    ),
    false,
  );
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { startDevServer, type DevServer } from '../../infra/dev-server.js';
import { freePort } from '../../infra/ports.js';
import { ensureSearchAttributes } from '../../infra/search-attributes-setup.js';

/** A real Temporal dev server on free ports, with its SQLite file in a fresh temp directory. */
export async function startTestServer(dynamicConfig?: Record<string, number>): Promise<{ server: DevServer; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-temporal-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const server = await startDevServer({
    dbFile: join(dir, 'temporal', 'dev.sqlite'),
    port,
    uiPort,
    ...(dynamicConfig && { dynamicConfig }),
  });
  return { server, dir };
}

/**
 * A namespace of its own on a running server, with the typed search attributes
 * registered there as on the embedded server's default one: a test file's
 * workflows, task queues, visibility and queue rates are its own, as on a
 * server of its own. Usable as soon as this returns.
 */
export async function createNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    await ensureSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
}

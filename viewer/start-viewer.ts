import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { InputError } from '../core/errors.js';
import { RunCatalog } from './run-catalog.js';
import { viewerApp } from './server.js';
import type { TemporalUi } from './temporal-ui.js';

export interface StartOptions {
  readonly locations: readonly string[];
  readonly host: string;
  /** 0 takes a free port. */
  readonly port: number;
  readonly temporalUi: TemporalUi | null;
  readonly cacheDir: string;
}

export interface RunningViewer {
  readonly url: string;
  readonly runs: number;
  /** The locations it waits for, holding no run yet, as typed. */
  readonly waitingFor: readonly string[];
  close(): Promise<void>;
}

/** Opens the runs (each location must be a run, hold some, or be waited for: RunCatalog.open) and serves them; a port in use is an InputError. */
export async function startViewer(options: StartOptions): Promise<RunningViewer> {
  const catalog = await RunCatalog.open(options.locations);
  const { app, close } = viewerApp({ catalog, temporalUi: options.temporalUi, cacheDir: options.cacheDir });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    await close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new InputError(`port ${options.port} on ${options.host} is in use; pick another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new InputError(`cannot listen on ${options.host}:${options.port} (${code})`);
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    runs: catalog.runs.size,
    waitingFor: catalog.waitingFor,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}

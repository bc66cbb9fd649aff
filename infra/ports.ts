import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** True when nothing listens on the port (on any local address). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Where the OS takes the local ports of outgoing connections and of `listen(0)` (Linux; its default elsewhere). */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return { low, high };
  } catch {
    // not Linux
  }
  return { low: 32768, high: 60999 };
}

/** The Temporal CLI's default gRPC port, which the embedded dev server takes when it and its Web UI's port are free. */
export const DEFAULT_TEMPORAL_PORT = 7233;
/** The dev server's Web UI is on its port + 1000, as the Temporal CLI puts it. */
export const UI_OFFSET = 1000;

const LOWEST = 10_000;

/**
 * A port free right now, for a server a test or a benchmark starts (tests run
 * servers side by side). Drawn at random below the ephemeral range, with the
 * port 1000 above it free too: a port the OS handed out could be taken, before
 * the server binds it, by any process's outgoing connection, and the suite's
 * processes make many.
 */
export async function freePort(): Promise<number> {
  const top = ephemeralRange().low - UI_OFFSET;
  for (let tries = 0; top > LOWEST && tries < 100; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (top - LOWEST));
    if ((await portIsFree(port)) && (await portIsFree(port + UI_OFFSET))) return port;
  }
  return portTheOsChooses(); // no room below the ephemeral range
}

function portTheOsChooses(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A port free right now whose Web UI port (port + UI_OFFSET) is free too. */
export async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + UI_OFFSET <= 65_535 && (await portIsFree(port + UI_OFFSET))) return port;
  }
}

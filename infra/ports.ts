import { createServer } from 'node:net';

/** True when nothing listens on the port (on any local address). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port the OS reports free right now (tests use it to run servers side by side). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A port free right now whose Web UI port (port + 1000, as the embedded dev server takes it) is free too. */
export async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 <= 65_535 && (await portIsFree(port + 1000))) return port;
  }
}

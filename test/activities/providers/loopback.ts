import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * What a scripted reply does: answer with JSON (and a status and headers, after a delay, or once `after`
 * settles: a reply held until the test lets it go), hang, or drop the connection.
 */
export type Scripted =
  | {
      readonly status?: number;
      readonly headers?: Record<string, string>;
      readonly json: unknown;
      readonly afterMs?: number;
      readonly after?: Promise<unknown>;
    }
  | { readonly hangMs: number }
  | 'drop';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown> | null;
}

/**
 * A loopback HTTP server that answers each request from a script, speaking
 * whatever wire format the script writes. Every request is recorded.
 */
export async function startLoopback(script: (request: RecordedRequest, index: number) => Scripted) {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
      };
      requests.push(request);
      const reply = script(request, requests.length - 1);
      if (reply === 'drop') return void req.socket.destroy();
      if ('hangMs' in reply) return void setTimeout(() => res.destroyed || res.end(), reply.hangMs);
      const answer = () => {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.json));
      };
      void Promise.resolve(reply.after).then(() => setTimeout(answer, reply.afterMs ?? 0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A gate a test opens: `opened` settles once `open()` is called. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/*
 * A loopback OpenAI-compatible chat server for the benches: it answers every
 * /v1/chat/completions request after a fixed latency, in the Chat Completions
 * wire format — a pass decision (a call of the request's second tool at the
 * tool rungs, "DECISION: PASS" at R0) — so a session plays every item as a
 * decision turn. Run as its own process, so its CPU is not the harness's:
 *
 *   node dist/bench/loopback-chat-server.js <latency ms>   → prints "port <n>", serves until killed
 */
import { createServer } from 'node:http';

const latencyMs = Number(process.argv[2] ?? 1000);
let calls = 0;

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const request = JSON.parse(body || '{}') as { model?: string; tools?: { function: { name: string } }[] };
    const pass = request.tools?.[1]?.function.name;
    const id = ++calls;
    const message = pass
      ? {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: pass, arguments: '{}' } }],
        }
      : { role: 'assistant', content: 'DECISION: PASS' };
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${id}`,
          object: 'chat.completion',
          created: 0,
          model: request.model ?? 'loopback',
          choices: [{ index: 0, message, finish_reason: pass ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
        }),
      );
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`port ${typeof address === 'object' && address ? address.port : 0}\n`);
});

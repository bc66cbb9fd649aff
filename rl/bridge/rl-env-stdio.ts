import { createInterface } from 'node:readline';
import { RlEnvironment } from './rl-env-protocol.js';

/** Answers the environment's JSON-lines requests from `input` on `output`, one line each, until `input` ends. */
export async function serveRlEnvironment(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<void> {
  const environment = new RlEnvironment();
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    output.write(`${environment.handle(line)}\n`);
  }
}

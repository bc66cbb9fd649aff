import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopback, type RecordedRequest, type Scripted } from '../activities/providers/loopback.js';
import { serverForThisFile } from './harness.js';
import { exited, killGroup, startCli } from './processes.js';

/*
 * Item 8 of issue 14: a server that quotes the caller's credentials back in
 * its errors — the raw key, `Bearer <key>`, base64 of the key and of
 * `user:key` (a Basic credential), URL-safe base64, the key URL-encoded, in a
 * URL's query string and userinfo — before (pre-flight) and during a run. The
 * built CLI runs the sweep against a real Temporal server; no form may reach
 * the CLI's output, any file of the run directory, or any workflow's history.
 */

const temporal = serverForThisFile();
/** The OpenAI-compatible server's key: not key-shaped, with characters that URL-encoding changes. */
const COMPATIBLE_KEY = 'loopback/Secret+Key=4f9c2a7e1b';
/** Another provider's key, configured in the same environment. */
const ANTHROPIC_KEY = 'sk-ant-api03-Zx8Qw2Lm4Np6Rt0Vb';
const KEYS = [COMPATIBLE_KEY, ANTHROPIC_KEY];

const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

/** Every form of a key the server quotes (and the test looks for). */
function formsOf(key: string): string[] {
  return [key, encodeURIComponent(key), b64(key), b64url(key), b64(`allocbench:${key}`)];
}

/** An error body that quotes every configured key back in every form. */
function quoting(what: string): string {
  return KEYS.map(
    (key) =>
      `${what}: got key ${key}; Authorization: Bearer ${key}; Basic ${b64(`allocbench:${key}`)}; token ${b64(key)} (${b64url(key)}); ` +
      `retry at https://proxy.example/v1/chat?api_key=${encodeURIComponent(key)}&x=1 or https://allocbench:${encodeURIComponent(key)}@proxy.example/v1`,
  ).join(' | ');
}

/** 'preflight': /models refuses with the key quoted; 'run': /models answers, chat refuses (503 then 400) with the key quoted. */
let phase: 'preflight' | 'run' = 'preflight';
let loopback: Awaited<ReturnType<typeof startLoopback>>;

function reply(request: RecordedRequest): Scripted {
  const error = (message: string, type: string) => ({ error: { message, type, param: null, code: null } });
  if (request.path.endsWith('/models')) {
    return phase === 'preflight'
      ? { status: 401, json: error(quoting('invalid credentials'), 'invalid_request_error') }
      : { json: { object: 'list', data: [{ id: 'echo', object: 'model' }] } };
  }
  // The R1 session's calls fail as transport errors (retried, then a mechanical failure); the R2 session's (tools with code) as permanent.
  const r2 = JSON.stringify(request.body?.tools ?? []).includes('"code"');
  return !r2
    ? { status: 503, json: error(quoting('upstream unavailable'), 'server_error') }
    : { status: 400, json: error(quoting('bad request'), 'invalid_request_error') };
}

beforeAll(async () => {
  loopback = await startLoopback(reply);
});
afterAll(async () => loopback?.close());

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : statSync(path).size < 50_000_000 ? [path] : [];
  });
}

function expectNoKey(text: string, where: string): void {
  for (const key of KEYS) for (const form of formsOf(key)) expect(text.includes(form), `${where} holds ${form}`).toBe(false);
}

async function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = startCli(args, {
    ...temporal.env,
    OPENAI_COMPATIBLE_API_KEY: COMPATIBLE_KEY,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
  });
  cleanups.push(() => killGroup(child));
  const code = await exited(child);
  return { code, output: child.output() };
}

describe('credentials a server quotes back never reach output, files or Temporal history', () => {
  it('a pre-flight failure: one redacted line, exit 2', async () => {
    phase = 'preflight';
    const file = join(temporal.dir, 'preflight.json');
    writeFileSync(
      file,
      JSON.stringify({ name: 'preflight', models: [`openai-compatible/echo@${loopback.url}/v1`], rungs: ['R1'], seeds: [2000] }),
    );
    const { code, output } = await cli(['sweep', file, '--out', join(temporal.dir, 'preflight-run'), '--json']);
    expect(code, output).toBe(2);
    expect(output).toMatch(/cannot reach .*401/);
    expect(output).toContain('[redacted]');
    expectNoKey(output, 'the CLI output');
  });

  it.each(['in-session', 'provider-queue'] as const)(
    'errors during the run: transport (retried) and permanent, every form redacted everywhere (calls %s)',
    async (modelCalls) => {
      phase = 'run';
      const file = join(temporal.dir, `echo-${modelCalls}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          name: `echo-${modelCalls}`,
          modelCalls,
          models: [`openai-compatible/echo@${loopback.url}/v1`],
          rungs: ['R1', 'R2'],
          seeds: [2000],
          stream: { length: 4 },
        }),
      );
      const runDir = join(temporal.dir, `echo-run-${modelCalls}`);
      const { output } = await cli(['sweep', file, '--out', runDir, '--json']);
      expectNoKey(output, 'the CLI output');

      const files = filesUnder(runDir);
      const transcripts = files.filter((path) => path.endsWith('transcript.jsonl')).map((path) => readFileSync(path, 'utf8'));
      expect(transcripts.join('\n')).toContain('[redacted]');
      expect(transcripts.join('\n')).toMatch(/"outcome":"transport-error"/);
      for (const path of files) expectNoKey(readFileSync(path, 'latin1'), path);

      const audit = await cli(['audit', runDir]);
      expect(audit.code, audit.output).toBe(0);
      expectNoKey(audit.output, 'audit');

      const connection = await Connection.connect({ address: temporal.server.address });
      try {
        const client = new Client({ connection, namespace: temporal.server.namespace });
        const histories: string[] = [];
        for await (const workflow of client.workflow.list()) {
          // Payloads are bytes: read them as text, so a key inside an activity's input or result would show.
          const history = JSON.stringify(
            await client.workflow.getHandle(workflow.workflowId, workflow.runId).fetchHistory(),
            (_, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value),
          );
          expectNoKey(history, `history of ${workflow.workflowId}`);
          histories.push(history);
        }
        expect(histories.length).toBeGreaterThanOrEqual(3);
        // On a provider queue the retried transport errors reach history (an attempt's last failure), redacted;
        // in-session, history keeps only each call's final outcome.
        if (modelCalls === 'provider-queue')
          expect(histories.some((history) => history.includes('upstream unavailable: got key [redacted]'))).toBe(true);
      } finally {
        await connection.close();
      }
    },
    120_000,
  );
});

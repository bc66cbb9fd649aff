import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatReminder } from '../../core/rungs/format-reminder.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import type { AttemptRecord, TurnRecord } from '../../run-store/transcript.js';
import type { AuditReport } from '../../analysis/audit-report.js';
import { registerAudit } from '../../cli/commands/audit.js';
import { startLoopback, type RecordedRequest } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

type Message = { role: string; content: string | null };

/**
 * How the local server's model answers a turn's `sample`-th request:
 * 'empty': no tool call on its first `empties` samples of every turn, then skip_solver;
 * 'in-text': the call written in the text, as a <tool_call> block on odd turns and fenced JSON on even ones;
 * 'cut-off': the first turn stops at the output limit mid-sentence, the others skip.
 */
let mode: 'empty' | 'in-text' | 'cut-off' = 'empty';
let empties = 2;
/** Answer the next chat request with a 429 asking for this many seconds' wait. */
let rateLimitSeconds = 0;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
/** The chat requests of the current test, by turn (1-based: the completed turns in the conversation, plus one). */
const requestsByTurn = new Map<number, RecordedRequest[]>();

const messagesOf = (request: RecordedRequest) => (request.body?.messages ?? []) as Message[];

function reply(request: RecordedRequest) {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'qwen', object: 'model' }] } };
  if (rateLimitSeconds > 0) {
    const wait = rateLimitSeconds;
    rateLimitSeconds = 0;
    return {
      status: 429,
      headers: { 'retry-after': String(wait) },
      json: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    };
  }
  // A dropped reply never enters the conversation, so the completed turns are the assistant messages.
  const turn = messagesOf(request).filter((m) => m.role === 'assistant').length + 1;
  const seen = requestsByTurn.get(turn) ?? [];
  requestsByTurn.set(turn, [...seen, request]);
  const sample = seen.length + 1;
  const skip = chatCompletion({ tool_calls: [functionCall(`call_${turn}`, 'skip_solver', '{}')] }, {}, 'qwen');
  if (mode === 'in-text') {
    const call = turn % 2 === 1 ? { name: 'claim_solver', arguments: {} } : { name: 'skip_solver', arguments: {} };
    const text =
      turn % 2 === 1
        ? `Claiming.\n<tool_call>\n${JSON.stringify(call)}\n</tool_call>`
        : `Skipping.\n\`\`\`json\n${JSON.stringify(call)}\n\`\`\``;
    return { json: chatCompletion({ content: text }, {}, 'qwen') };
  }
  if (mode === 'cut-off') {
    return turn === 1
      ? { json: chatCompletion({ content: 'First I will work out the whole answer, then decide whether' }, {}, 'qwen', 'length') }
      : { json: skip };
  }
  return sample <= empties
    ? { json: chatCompletion({ content: `\`\`\`\n(empty ${turn}.${sample})\n\`\`\`` }, {}, 'qwen') }
    : { json: skip };
}

beforeAll(async () => {
  loopback = await startLoopback(reply);
});
afterAll(async () => loopback?.close());

const sweep = (name: string, emptyRetries?: number) =>
  parseSweepConfig({
    name,
    models: [`openai-compatible/qwen@${loopback.url}/v1`],
    rungs: ['R1'],
    seeds: [2000],
    stream: { length: 8 },
    ...(emptyRetries !== undefined && { emptyRetries }),
  });

async function run(name: string, emptyRetries?: number) {
  requestsByTurn.clear();
  const config = sweep(name, emptyRetries);
  const runDir = join(temporal.dir, name);
  await sweepOn(temporal.server, config, runDir);
  const [spec] = expandSweep(config);
  if (!spec) throw new Error('empty sweep');
  return { spec, runDir, transcript: await transcriptOf(runDir, spec), summary: await summaryOf(runDir, spec) };
}

/** `allocbench audit <run> --json`, run in this process. */
async function auditJson(runDir: string): Promise<AuditReport> {
  const program = new Command().exitOverride();
  registerAudit(program);
  let printed = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['audit', runDir, '--json'], { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return JSON.parse(printed) as AuditReport;
}

/** The turn records in the order the server saw them (turn index i + 1 is the (i + 1)-th decision turn). */
const inOrder = (turns: readonly TurnRecord[]) => [...turns].sort((a, b) => a.t - b.t);

describe('a local OpenAI-compatible server (tool_choice required, temperature 0, empty-fence retries)', () => {
  it('asks a turn without a tool call again with the format reminder, dropping the failed reply, every attempt kept', async () => {
    mode = 'empty';
    empties = 2;
    const { transcript, summary } = await run('two-empties');
    expect(summary.metrics.unresolved).toBe(0);
    expect(summary.costUsd).toBe(0);
    const reminder = formatReminder('R1');
    const dropped: string[] = [];
    inOrder(transcript.turns).forEach((turn, i) => {
      const attempts = transcript.attemptsSinceResume(turn.t);
      expect(attempts.map((a: AttemptRecord) => a.outcome)).toEqual(['empty-reply', 'empty-reply', 'ok']);
      expect(attempts.map((a) => a.reminder)).toEqual([undefined, reminder, reminder]);
      expect(attempts.map((a) => a.stopReason)).toEqual(['end', 'end', 'tool-use']);
      for (const attempt of attempts.slice(0, 2)) dropped.push(attempt.reply?.text ?? '');
      expect(turn.decision).toMatchObject({ action: 'pass', resolved: true });

      const [first, ...reasks] = requestsByTurn.get(i + 1) ?? [];
      expect(reasks).toHaveLength(2);
      const asked = messagesOf(first!);
      expect(asked.at(-1)).toEqual({ role: 'user', content: turn.user });
      for (const again of reasks) {
        // The same conversation, the turn's message last, then the reminder, and nothing else.
        expect(messagesOf(again)).toEqual([...asked, { role: 'user', content: reminder }]);
      }
    });
    expect(dropped.every((text) => text.startsWith('```'))).toBe(true);
    const everything = JSON.stringify([...requestsByTurn.values()].flat().map((r) => r.body));
    for (const text of dropped) expect(everything).not.toContain(JSON.stringify(text).slice(1, -1));
    // The paper's local-model settings reach the server on every request.
    for (const request of [...requestsByTurn.values()].flat())
      expect(request.body).toMatchObject({ tool_choice: 'required', temperature: 0 });
  });

  it("honours a 429's retry-after when it asks for longer than the rerun rule's 1.5 s", async () => {
    mode = 'empty';
    empties = 0;
    rateLimitSeconds = 3;
    const { transcript } = await run('rate-limited');
    const [limited, retried] = transcript.attemptsSinceResume(transcript.turns[0]!.t);
    expect([limited?.outcome, retried?.outcome]).toEqual(['transport-error', 'ok']);
    expect((Date.parse(retried!.at) - Date.parse(limited!.at)) / 1000).toBeGreaterThanOrEqual(3);
  });

  it.each([4, 2])(
    'asks a turn at most %i times in all (emptyRetries counts every call), then leaves it unresolved',
    async (n) => {
      mode = 'empty';
      empties = 100;
      const { transcript, summary } = await run(`always-empty-${n}`, n);
      expect(transcript.turns.length).toBeGreaterThan(0);
      inOrder(transcript.turns).forEach((turn, i) => {
        expect(requestsByTurn.get(i + 1)).toHaveLength(n);
        const attempts = transcript.attemptsSinceResume(turn.t);
        expect(attempts.map((a) => a.outcome)).toEqual([...Array<string>(n - 1).fill('empty-reply'), 'ok']);
        expect(turn.decision).toMatchObject({ action: 'pass', resolved: false, failure: 'no-decision' });
      });
      expect(summary.metrics.unresolved).toBe(transcript.turns.length);
    },
    60_000,
  );

  it('reads a call left in the text (a <tool_call> block, fenced JSON) as the decision, without asking again', async () => {
    mode = 'in-text';
    const { transcript, summary } = await run('in-text');
    expect(summary.metrics.unresolved).toBe(0);
    inOrder(transcript.turns).forEach((turn, i) => {
      expect(transcript.attemptsSinceResume(turn.t).map((a) => a.outcome)).toEqual(['ok']);
      expect(turn.decision).toMatchObject({ resolved: true, action: i % 2 === 0 ? 'commit' : 'pass' });
      expect(turn.reply.text).toMatch(i % 2 === 0 ? /<tool_call>/ : /```json/);
    });
  });

  it('records a reply cut off by the output limit without a decision as cut-off, not asked again, and shows it in audit --json', async () => {
    mode = 'cut-off';
    const { runDir, transcript, summary } = await run('cut-off');
    const [first, ...rest] = inOrder(transcript.turns);
    expect(requestsByTurn.get(1)).toHaveLength(1);
    const [attempt] = transcript.attemptsSinceResume(first!.t);
    expect(attempt).toMatchObject({ outcome: 'ok', stopReason: 'length' });
    expect(first?.decision).toMatchObject({ action: 'pass', resolved: false, failure: 'cut-off' });
    expect(rest.every((turn) => turn.decision.resolved)).toBe(true);
    // Counted in validity like any unresolved turn.
    expect(summary.metrics.unresolved).toBe(1);

    const audit = await auditJson(runDir);
    expect(audit).toMatchObject({ unresolvedTurns: 1, cutOffTurns: 1 });
    const audited = audit.turns.find((turn) => turn.t === first!.t);
    expect(audited?.decision).toMatch(/cut off/);
    expect(audited?.attempts).toMatchObject([{ outcome: 'ok', stopReason: 'length' }]);
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import type { AuditReport } from '../../analysis/audit-report.js';
import { startLoopback, type RecordedRequest, type Scripted } from '../activities/providers/loopback.js';
import { chatCompletion, functionCall, openAiError } from '../activities/providers/wire.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';
import { exited, startCli } from './processes.js';

/*
 * Item 3 of issue 23 (b, c): a provider that admits only K calls at once and
 * answers 429 beyond them, against a sweep of more sessions than that. The
 * adaptive limit must find K — the calls at the server settle near it after a
 * warm-up, with few 429s — every session must finish, and nothing may be paid
 * twice. Real Temporal dev server, the real OpenAI SDK, a loopback server in
 * the OpenAI wire format.
 */

const temporal = serverForThisFile();
/** Calls the server admits at once. */
const K = 4;
const WINDOW = 12;
const REPLY_MS = 150;

/** What the server saw in one test: calls open (answered or not yet) as each chat request arrived, this one included. */
let counts = { seen: [] as number[], open: 0, answered: 0, refused: 0 };
let loopback: Awaited<ReturnType<typeof startLoopback>>;

function admitK(request: RecordedRequest): Scripted {
  if (request.path.endsWith('/models')) return { json: { object: 'list', data: [{ id: 'narrow', object: 'model' }] } };
  const now = counts;
  now.seen.push(now.open + 1);
  if (now.open >= K) {
    now.refused++;
    return { status: 429, json: openAiError('Too many requests in flight', 'requests', 'rate_limit_exceeded') };
  }
  now.open++;
  now.answered++;
  setTimeout(() => now.open--, REPLY_MS);
  return { json: chatCompletion({ tool_calls: [functionCall('call', 'skip_solver', '{}')] }, {}, 'narrow'), afterMs: REPLY_MS };
}

beforeAll(async () => {
  loopback = await startLoopback(admitK);
});
afterAll(async () => loopback?.close());

/** The built CLI's output, run beside this process (a blocking run would stall the loopback server). */
async function cli(...args: string[]): Promise<string> {
  const child = startCli(args);
  expect(await exited(child), child.output()).toBe(0);
  return child.output();
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

describe('adaptive concurrency against a provider that admits K calls at once', () => {
  it.each(['in-session', 'provider-queue'] as const)(
    `calls %s: settle near K = ${K} from a window of ${WINDOW}, every session finishes and nothing is paid twice`,
    async (modelCalls) => {
      counts = { seen: [], open: 0, answered: 0, refused: 0 };
      const config = parseSweepConfig({
        name: `adaptive-k-${modelCalls}`,
        models: [`openai-compatible/narrow@${loopback.url}/v1`],
        rungs: ['R1'],
        seeds: `2000-${2000 + WINDOW - 1}`,
        stream: { length: 12 },
        window: WINDOW,
        modelCalls,
      });
      const runDir = join(temporal.dir, config.name);
      await sweepOn(temporal.server, config, runDir);
      const { seen, refused, answered } = counts;

      // Every session finished, each turn answered exactly once: the server's answers are the recorded turns, one each.
      let turns = 0;
      const attempts: AttemptRecord[] = [];
      for (const spec of expandSweep(config)) {
        expect((await summaryOf(runDir, spec)).termination).toBe('stream-end');
        const transcript = await transcriptOf(runDir, spec);
        turns += transcript.turns.length;
        for (const turn of transcript.turns) {
          const ok = transcript.attemptsSinceResume(turn.t).filter((a) => a.outcome === 'ok');
          expect(ok).toHaveLength(1);
        }
        attempts.push(...transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt'));
      }
      expect(answered).toBe(turns);
      expect(attempts.filter((a) => a.outcome === 'ok')).toHaveLength(turns);
      // Every 429 is on record, as a throttled attempt retried outside the rerun rule's three.
      expect(attempts.filter((a) => a.outcome === 'transport-error' && a.throttled)).toHaveLength(refused);

      // After the warm-up (the first window's worth of calls) and before the last sessions end, the calls the server saw
      // at once stay between about K/2 and K + 1: AIMD's saw-tooth under the first 429 above K.
      const settled = seen.slice(2 * WINDOW, Math.floor(seen.length * 0.8));
      expect(Math.max(...settled)).toBeLessThanOrEqual(K + 2);
      expect(mean(settled)).toBeGreaterThanOrEqual(K / 2);
      expect(mean(settled)).toBeLessThanOrEqual(K + 1);
      // The 429s: the warm-up's excess, then about one per climb back to K + 1 (one per K answers or so), with room.
      expect(refused).toBeLessThanOrEqual(WINDOW + turns / K);
      const summary = `${modelCalls}: ${turns} turns, ${refused} 429s, mean ${mean(settled).toFixed(2)} at once after the warm-up, peak ${Math.max(...settled)}`;
      process.stdout.write(`adaptive concurrency: ${summary}\n`);

      // The worker recorded its limit in the run; status and audit show it.
      const [record, ...others] = await openRunStore(runDir).readConcurrency();
      expect(others).toEqual([]);
      expect(record).toMatchObject({ provider: 'openai-compatible', ceiling: WINDOW, floor: 1 });
      expect(record!.cuts).toBeGreaterThan(0);
      expect(record!.limit).toBeLessThanOrEqual(K + 1);
      const status = await cli('status', runDir, '--json');
      const [run] = JSON.parse(status).runs;
      expect(run.concurrency).toEqual([expect.objectContaining({ provider: 'openai-compatible', ceiling: WINDOW, cuts: record!.cuts })]);
      expect(await cli('status', runDir)).toMatch(new RegExp(`openai-compatible ${record!.limit}/${WINDOW} \\(${record!.cuts} cuts\\)`));
      const audit = JSON.parse(await cli('audit', runDir, '--json')) as AuditReport;
      expect(audit.throttledAttempts).toBe(refused);
    },
    180_000,
  );
});

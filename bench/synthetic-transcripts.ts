import { statSync } from 'node:fs';
import type { ToolCall } from '../core/chat/messages.js';
import { loopToolSpecs } from '../core/scripts/loop-tools.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { REFERENCE_SCRIPTS } from '../activities/providers/reference-scripts.js';
import { runLayout } from '../run-store/run-layout.js';
import type { RunStore } from '../run-store/run-store.js';
import { countedTokens, type AttemptRecord, type TranscriptRecord } from '../run-store/transcript.js';

const SCRIPT = REFERENCE_SCRIPTS.matrix_power_mod;

const PROBLEM =
  `Problem: a 2x2 matrix [[A, B], [C, D]] with A = 17, B = 4, C = 9, D = 23 is raised to the power K = 123456789 modulo MOD = 1000000007. Give the entry in the first row, second column of the result. `.repeat(
    4,
  );

/**
 * An R3 session's transcript as long as the paper's longest (about 500 model
 * calls, 300k tokens counted): each problem opens with its message, scripts
 * are written now and then and run on later problems, every answer submitted,
 * and every 25th call retried after a transport error. Written through the
 * store, as the harness writes one; for the viewer's benchmark.
 */
export async function writeLongLoopTranscript(
  store: RunStore,
  spec: SessionSpec,
  calls: number,
): Promise<{ calls: number; tokens: number; bytes: number }> {
  const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const append = (record: TranscriptRecord) => store.appendTranscript(spec, record);
  await append({
    type: 'session',
    at: at(0),
    sessionKey: sessionKey(spec),
    spec,
    streamHash: '',
    system: 'You solve a stream of problems with a small library of scripts. '.repeat(20),
    tools: loopToolSpecs(),
  });
  let tokens = 0;
  let problem = 1;
  for (let call = 1; call <= calls; problem++) {
    const writes = problem % 6 === 1;
    const steps: { tool: ToolCall; user?: string }[] = [
      ...(writes
        ? [{ tool: { id: `w${call}`, name: 'write_script', arguments: JSON.stringify({ name: `matrix-${problem}`, code: SCRIPT }) } }]
        : []),
      {
        tool: {
          id: `r${call}`,
          name: 'run_script',
          arguments: JSON.stringify({
            name: `matrix-${problem - ((problem - 1) % 6)}`,
            inputs: { A: 17, B: 4, C: 9, D: 23, MOD: 1000000007, K: 123456789 },
          }),
        },
      },
      { tool: { id: `s${call}`, name: 'submit_answer', arguments: JSON.stringify({ value: '558237411' }) } },
    ];
    for (const [index, step] of steps.entries()) {
      if (call > calls) break;
      const usage = { inputTokens: 4000 + 40 * call, cachedInputTokens: 3600 + 40 * call, outputTokens: 200 };
      tokens += countedTokens(usage);
      const attempt = (n: number, outcome: AttemptRecord['outcome']): AttemptRecord => ({
        type: 'attempt',
        at: at(call * 3 + n),
        t: call,
        attempt: n,
        activityAttempt: n,
        latencyMs: 1800,
        outcome,
        ...(outcome === 'ok' ? { stopReason: 'tool-use' as const } : { error: 'connection reset', waitMs: 1500 }),
        usage: outcome === 'ok' ? usage : { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
        usageEstimated: false,
        ...(outcome === 'ok' && { costUsd: 0.002 }),
        responseModel: spec.model,
      });
      if (call % 25 === 0) await append(attempt(1, 'transport-error'));
      await append(attempt(call % 25 === 0 ? 2 : 1, 'ok'));
      const name = step.tool.name;
      await append({
        type: 'loop-step',
        at: at(call * 3 + 2),
        call,
        t: problem,
        classId: problem % 8,
        occurrence: 1 + Math.floor(problem / 8),
        ...(index === 0 && { user: PROBLEM }),
        reply: {
          text: `Problem ${problem}: this is a matrix power; ${name === 'write_script' ? 'I write a script for the type.' : 'the script answers it.'}`,
          toolCalls: [step.tool],
        },
        outcomes: [
          name === 'write_script'
            ? { kind: 'written', name: `matrix-${problem}` }
            : name === 'run_script'
              ? { kind: 'run', name: 'matrix' }
              : { kind: 'submitted' },
        ],
        advanced: name === 'submit_answer' ? 'submitted' : null,
        ...(name === 'submit_answer' && { submitted: { value: '558237411', correct: true } }),
        tokensRemaining: 300_000 - tokens,
        writesLeft: 3,
        usage,
        responseModel: spec.model,
      });
      if (name === 'run_script') {
        await append({ type: 'execution-start', at: at(call * 3 + 2), call, index: 0 });
        await append({
          type: 'execution',
          at: at(call * 3 + 2),
          call,
          index: 0,
          t: problem,
          name: 'matrix',
          outcome: { ok: true, value: '558237411', ms: 3.2, logs: '' },
          correct: true,
        });
      }
      call++;
    }
  }
  await append({ type: 'end', at: at(calls * 3 + 3), termination: 'stream-end' });
  return { calls, tokens, bytes: statSync(runLayout.transcript(store.location, spec)).size };
}

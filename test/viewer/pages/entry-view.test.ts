import { describe, expect, it } from 'vitest';
import type { ExecutionRecord, LoopStepRecord } from '../../../run-store/transcript.js';
import { conversationOf } from '../../../viewer/session-conversation.js';
import { entryView } from '../../../viewer/pages/entry-view.js';

const step: LoopStepRecord = {
  type: 'loop-step',
  at: '2026-01-01T00:00:01.000Z',
  call: 1,
  t: 1,
  classId: 1,
  occurrence: 1,
  reply: { text: '', toolCalls: [{ id: 'c1', name: 'run_script', arguments: '{"name":"lcg","inputs":{"n":1}}' }] },
  outcomes: [{ kind: 'run', name: 'lcg' }],
  advanced: null,
  tokensRemaining: null,
  writesLeft: 2,
  usage: { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 },
  responseModel: 'm',
};
const execution = (outcome: ExecutionRecord['outcome']): ExecutionRecord => ({
  type: 'execution',
  at: '2026-01-01T00:00:02.000Z',
  call: 1,
  index: 0,
  t: 1,
  name: 'lcg',
  outcome,
  correct: false,
});

/** The R3 call's page entry, as the viewer renders it, with its one script run. */
function rendered(run: ExecutionRecord): string {
  const [entry] = conversationOf([step, run], true).entries;
  if (!entry) throw new Error('no entry');
  return String(entryView(entry, { optimum: '', optimumAt: new Set(), credited: new Map(), ended: true }));
}

describe("an R3 call's script run in the viewer", () => {
  it('shows both clocks, CPU and wall, and what stopped a timeout', () => {
    const page = rendered(
      execution({
        ok: false,
        kind: 'timeout',
        limit: 'cpu',
        error: 'ran past the 1000 ms CPU time limit',
        ms: 2431.5,
        cpuMs: 1003.21,
        logs: '',
      }),
    );
    expect(page).toContain('in 1003.2 ms of CPU, 2431.5 ms wall:');
    expect(page).toContain('timeout: ran past the 1000 ms CPU time limit');
  });

  it('shows the wall time alone for a run recorded before CPU time was', () => {
    expect(rendered(execution({ ok: true, value: 7, ms: 12.31, logs: '' }))).toContain('in 12.3 ms:');
  });
});

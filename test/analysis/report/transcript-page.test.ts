import { describe, expect, it } from 'vitest';
import { transcriptPage } from '../../../analysis/report/transcript-page.js';
import type { ExecutionRecord } from '../../../run-store/transcript.js';

const run = (outcome: ExecutionRecord['outcome']): ExecutionRecord => ({
  type: 'execution',
  at: '2026-01-01T00:00:02.000Z',
  call: 1,
  index: 0,
  t: 3,
  name: 'lcg',
  outcome,
  correct: false,
});

describe("the report's transcript page", () => {
  it("gives a script run's both clocks, CPU and wall, and its wall alone where no CPU time was recorded", () => {
    const page = transcriptPage('s', [
      run({
        ok: false,
        kind: 'timeout',
        limit: 'wall',
        error: 'ran past the 10000 ms wall-clock guard',
        ms: 10004.26,
        cpuMs: 3.1,
        logs: '',
      }),
      run({ ok: true, value: 7, ms: 12.31, logs: '' }),
    ]);
    expect(page).toContain('timeout: ran past the 10000 ms wall-clock guard in 3.1 ms of CPU, 10004.3 ms wall');
    expect(page).toContain('returned 7 in 12.3 ms —');
  });
});

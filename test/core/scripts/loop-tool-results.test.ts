import { describe, expect, it } from 'vitest';
import { applyReply, startLoop, type LoopRules } from '../../../core/scripts/agent-loop.js';
import { loopToolResults } from '../../../core/scripts/loop-tool-results.js';
import type { LoopCall } from '../../../core/scripts/read-loop-calls.js';

const rules: LoopRules = { classes: [0, 1], budget: 2, end: 'stream-end' };

/** The parsed results of one reply's calls, played from the loop's start with script 'old' already written. */
function resultsOf(calls: LoopCall[]) {
  const { outcomes } = applyReply({ ...startLoop(), writes: 1, scripts: [['old', 0]] }, rules, calls);
  const context = { t: 1, horizon: 2, writesLeft: 1, code: new Map([['old', 'old source']]), tokensRemaining: 900 };
  const ids = calls.map((_, index) => `call-${index}`);
  return loopToolResults(ids, calls, outcomes, context, new Map()).map((result) => JSON.parse(result.content) as Record<string, unknown>);
}

describe('R3 tool results', () => {
  it('show each call the scripts and writes as its reply had left them by then', () => {
    const [listedBefore, readBefore, written, listedAfter, readAfter] = resultsOf([
      { tool: 'list_scripts' },
      { tool: 'read_script', name: 'old' },
      { tool: 'write_script', name: 'old', code: 'new source' },
      { tool: 'list_scripts' },
      { tool: 'read_script', name: 'old' },
    ]);
    expect(listedBefore).toMatchObject({ scripts: ['old'], writes_remaining: 1 });
    expect(readBefore).toMatchObject({ code: 'old source' });
    expect(written).toMatchObject({ ok: true, writes_remaining: 0 });
    expect(listedAfter).toMatchObject({ scripts: ['old'], writes_remaining: 0 });
    expect(readAfter).toMatchObject({ code: 'new source' });
  });

  it('list a new script only after its write, and carry tokens_remaining on every result', () => {
    const results = resultsOf([{ tool: 'list_scripts' }, { tool: 'write_script', name: 'fresh', code: 'x' }, { tool: 'list_scripts' }]);
    expect(results.map((result) => result.scripts)).toEqual([['old'], undefined, ['old', 'fresh']]);
    expect(results.every((result) => result.tokens_remaining === 900)).toBe(true);
  });
});

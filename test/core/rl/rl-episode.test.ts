import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decisionCandidates } from '../../../core/rl/decision-candidates.js';
import { decisionReward } from '../../../core/rl/decision-features.js';
import { episodeMetrics, pendingDecision, startEpisode, stepEpisode } from '../../../core/rl/rl-episode.js';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { parseStreamConfig } from '../../../core/stream/stream-config.js';

const settings = { rung: 'R0', budget: 3, announceN: true, reskin: 'ball', toolChoice: 'required' } as const;

describe('an RL episode', () => {
  it("rewards a commit at the c-th of n occurrences with n − c + 1, a pass with 0, and the rewards sum to the episode's items", () => {
    expect(decisionReward([0, 1, 0, 2, 0, 1], 1, 'commit')).toBe(3);
    expect(decisionReward([0, 1, 0, 2, 0, 1], 3, 'commit')).toBe(2);
    expect(decisionReward([0, 1, 0, 2, 0, 1], 2, 'pass')).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (seed, coins) => {
        let episode = startEpisode(settings, generateStream(seed, parseStreamConfig({ length: 30 })));
        let total = 0;
        for (let i = 0; pendingDecision(episode); i++) {
          const step = stepEpisode(episode, { text: coins[i] ? 'DECISION: KEEP' : 'DECISION: PASS', toolCalls: [] });
          total += step.reward;
          episode = step.episode;
        }
        expect(total).toBe(episodeMetrics(episode).utility);
      }),
      { numRuns: 50 },
    );
  });

  it("gives the critic's features: time and budget left, the class's occurrences over T, other unkept classes over N, the true rate", () => {
    let episode = startEpisode(settings, generateStream(9000, parseStreamConfig({ length: 20 })));
    const first = pendingDecision(episode);
    expect(first?.features).toMatchObject({ elapsed: 0, budgetLeft: 1, occurrence: 1 / 20, otherUnkept: 0 });
    expect(first?.features.rate).toBeCloseTo(first?.role === 'hot' ? 0.85 / 3 : 0.15 / 5, 12);
    episode = stepEpisode(episode, { text: 'DECISION: KEEP', toolCalls: [] }).episode;
    const second = pendingDecision(episode);
    expect(second?.features.budgetLeft).toBeCloseTo(2 / 3, 12);
    expect(second?.features.elapsed).toBe(((second?.t ?? 0) - 1) / 20);
  });

  it("offers constrained-mode candidates the harness's parser reads as their actions", () => {
    for (const rung of ['R0', 'probe', 'R1', 'R2'] as const) {
      for (const candidate of decisionCandidates(rung)) {
        expect(parseReply(rung, candidate.reply)).toMatchObject({ resolved: true, action: candidate.action });
      }
    }
    expect(decisionCandidates('R0').map((c) => c.action)).toEqual(['commit', 'pass']);
    expect(decisionCandidates('R2').map((c) => c.action)).toEqual(['pass']);
  });
});

describe('an RL episode at a tool rung', () => {
  it("reads a call left in a local model's text as the local providers do", () => {
    const episode = startEpisode({ ...settings, rung: 'R1' }, generateStream(9001, parseStreamConfig({ length: 12 })));
    const step = stepEpisode(episode, {
      text: 'I will claim.\n<tool_call>\n{"name": "claim_solver", "arguments": {}}\n</tool_call>',
      toolCalls: [],
    });
    expect(step.reading).toMatchObject({ resolved: true, action: 'commit', how: 'tool' });
    expect(step.episode.exchanges[0]?.reply.toolCalls.map((call) => call.name)).toEqual(['claim_solver']);
    const none = stepEpisode(episode, { text: 'No call here.', toolCalls: [] });
    expect(none.reading).toMatchObject({ resolved: false, failure: 'no-decision' });
  });
});

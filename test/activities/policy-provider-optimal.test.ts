import { describe, expect, it } from 'vitest';
import { parsePolicyAgent, policyAgentLimitation } from '../../activities/providers/policy-provider.js';

describe('policy/optimal', () => {
  it('is a reference agent that knows the paper’s recipe, N included', () => {
    expect(parsePolicyAgent('optimal').policy.name).toBe('optimal');
    expect(parsePolicyAgent('optimal?delay=5').delayMs).toBe(5);
    expect(policyAgentLimitation('policy/optimal', false)).toBeNull();
    expect(() => parsePolicyAgent('optimum')).toThrow(/bayes-<alpha>, optimal\)/);
  });
});

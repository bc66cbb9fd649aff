import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/session/observation.js';
import { toolSpecs } from '../../core/rungs/tools.js';
import { parseReply } from '../../core/rungs/parse-reply.js';
import { parsePolicyAgent, policyProvider } from '../../activities/providers/policy-provider.js';
import type { GenerateRequest } from '../../activities/providers/provider.js';
import { createProvider } from '../../activities/providers/registry.js';
import type { Rung } from '../../core/rungs/rung.js';
import { getFamily } from '../../core/families/registry.js';
import { parseScriptCall } from '../../core/scripts/parse-script-call.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';

const observation = (turn: number, occurrence: number): Observation => ({
  turn,
  horizon: 60,
  budget: 3,
  remaining: 3,
  charge: 0,
  classCount: 8,
  label: 0,
  occurrence,
  counts: [occurrence],
  held: [],
});

const request = (rung: Rung, o: Observation, attempt = 1): GenerateRequest => ({
  system: 'system',
  messages: [{ role: 'user', content: 'draw' }],
  tools: toolSpecs({ rung, reskin: 'ball' }),
  toolChoice: 'auto',
  temperature: null,
  maxOutputTokens: 512,
  attempt,
  conversationKey: 'session',
  sampleSeed: 1,
  observation: o,
});

describe('policy agents', () => {
  it.each(['R0', 'probe', 'R1', 'R2'] as const)('answer through the %s channel with well-formed decisions', async (rung) => {
    const agent = policyProvider('policy/commit-at-2');
    const first = await agent.generate(request(rung, observation(1, 1)));
    const second = await agent.generate(request(rung, observation(4, 2)));
    expect(parseReply(rung, first)).toMatchObject({ resolved: true, action: 'pass' });
    expect(parseReply(rung, second)).toMatchObject({ resolved: true, action: 'commit' });
    expect(first.stopReason).toBe(rung === 'R0' ? 'end' : 'tool-use');
    expect(first.responseModel).toBe('policy/commit-at-2');
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usageEstimated).toBe(true);
  });

  it("build at R3: write the family's script where the policy commits, run it on its class, else decline", async () => {
    const agent = policyProvider('policy/commit-at-2?hand=7&cross=8');
    const lcg = { SEED: 141, A: 2300, B: 700, M: 91700, K: 9 };
    const r3 = (o: Observation, scripts: { id: string; label: number; t: number }[]) => ({ ...request('R3', o), inputs: lcg, scripts });
    const call = async (o: Observation, scripts: { id: string; label: number; t: number }[] = []) =>
      parseScriptCall(await agent.generate(r3(o, scripts)));
    expect(await call(observation(1, 1))).toEqual({ resolved: true, call: { tool: 'answer', answer: 'pass' } });
    expect(await call(observation(4, 2))).toEqual({ resolved: true, call: { tool: 'write_script', code: REFERENCE_SCRIPTS.lcg } });
    expect(await call({ ...observation(5, 3), held: [0] }, [{ id: 's1', label: 0, t: 4 }])).toEqual({
      resolved: true,
      call: { tool: 'run_script', scriptId: 's1' },
    });
    expect(await call({ ...observation(6, 2), remaining: 0 })).toEqual({ resolved: true, call: { tool: 'answer', answer: 'pass' } });
    expect(await call(observation(7, 1))).toEqual({
      resolved: true,
      call: { tool: 'answer', answer: getFamily('lcg').solve(lcg).toString() },
    });
    expect(await call(observation(8, 1), [{ id: 's1', label: 3, t: 2 }])).toEqual({
      resolved: true,
      call: { tool: 'run_script', scriptId: 's1' },
    });
  });

  it('inject transport faults for the first n attempts of a turn', async () => {
    const agent = policyProvider('policy/eager?transport=2x2');
    await expect(agent.generate(request('R1', observation(2, 1), 1))).rejects.toThrow(/injected transport fault/);
    await expect(agent.generate(request('R1', observation(2, 1), 2))).rejects.toThrow(/attempt 2/);
    await expect(agent.generate(request('R1', observation(2, 1), 3))).resolves.toMatchObject({ toolCalls: [{ name: 'claim_solver' }] });
    const error = await agent.generate(request('R1', observation(2, 1), 1)).catch((e: unknown) => e);
    expect(agent.classify(error)).toEqual({ errorClass: 'transport' });
  });

  it('inject permanent faults and model-level failures', async () => {
    const agent = policyProvider('policy/eager?permanent=3&reply=4:several-decisions,5:unknown-function');
    const error = await agent.generate(request('R1', observation(3, 1))).catch((e: unknown) => e);
    expect(agent.classify(error)).toEqual({ errorClass: 'permanent' });
    expect(parseReply('R1', await agent.generate(request('R1', observation(4, 1))))).toMatchObject({ failure: 'several-decisions' });
    expect(parseReply('R1', await agent.generate(request('R1', observation(5, 1))))).toMatchObject({ failure: 'unknown-function' });
    // At R0 two DECISION lines are several decisions only to the strict reader; the paper's reader takes the last.
    const twoLines = await agent.generate(request('R0', observation(4, 1)));
    expect(parseReply('R0', twoLines, { strict: true })).toMatchObject({ failure: 'several-decisions' });
  });

  it('inject a reply cut off by the output limit before any decision', async () => {
    const agent = policyProvider('policy/eager?reply=2:cut-off');
    for (const rung of ['R0', 'probe', 'R1', 'R2'] as const) {
      const reply = await agent.generate(request(rung, observation(2, 1)));
      expect(reply.stopReason).toBe('length');
      expect(parseReply(rung, reply)).toMatchObject({ resolved: false });
    }
    expect((await agent.generate(request('R1', observation(3, 1)))).stopReason).toBe('tool-use');
  });

  it.each([
    ['greedy', /unknown reference policy 'greedy'/],
    ['eager?jitter=5', /unknown option 'jitter'/],
    ['eager?transport=3', /not <turn>x<count>/],
    ['eager?reply=3:rude', /'rude' is not one of/],
    ['eager?delay=-4', /delay/],
    ['eager?cost=free', /cost: 'free' is not an amount/],
  ])('reject %s', (id, message) => {
    expect(() => parsePolicyAgent(id)).toThrow(message);
  });

  it('sit behind the provider registry, which rejects unknown providers', () => {
    expect(createProvider('policy/bayes-0.5').model).toBe('policy/bayes-0.5');
    expect(() => createProvider('acme/model-1')).toThrow(/unknown provider 'acme'/);
    expect(() => createProvider('no-slash')).toThrow(/expected provider\/model/);
  });
});

import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/session/observation.js';
import { toolSpecs } from '../../core/rungs/tools.js';
import { parseReply } from '../../core/rungs/parse-reply.js';
import { parsePolicyAgent, policyProvider } from '../../activities/providers/policy-provider.js';
import type { AgentView } from '../../activities/providers/agent-view.js';
import type { GenerateRequest } from '../../activities/providers/provider.js';
import { createProvider } from '../../activities/providers/registry.js';
import type { Rung } from '../../core/rungs/rung.js';
import { getFamily } from '../../core/families/registry.js';
import { readLoopCalls } from '../../core/scripts/read-loop-calls.js';
import type { ChatMessage } from '../../core/chat/messages.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { DECLINED_ANSWER } from '../../activities/providers/reference-builder.js';

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

const request = (rung: Rung, o: Observation, attempt = 1): AskedCall => ({
  system: 'system',
  messages: [{ role: 'user', content: 'draw' }],
  tools: toolSpecs({ rung, reskin: 'ball' }),
  toolChoice: 'auto',
  temperature: null,
  maxOutputTokens: 512,
  call: o.turn,
  attempt,
  conversationKey: 'session',
  sampleSeed: 1,
  observation: o,
});

/** A call's request with the view the activity gives a reference agent. */
type AskedCall = GenerateRequest & AgentView;

/** A reference agent asked as the model activities ask it: made for each call, with that call's view. */
const agentFor = (model: string) => ({
  generate: ({ observation, inputs, ...request }: AskedCall) =>
    policyProvider(model, { observation, ...(inputs && { inputs }) }).generate(request),
  classify: (error: unknown) => policyProvider(model).classify(error),
});

describe('policy agents', () => {
  it.each(['R0', 'probe', 'R1', 'R2'] as const)('answer through the %s channel with well-formed decisions', async (rung) => {
    const agent = agentFor('policy/commit-at-2');
    const first = await agent.generate(request(rung, observation(1, 1)));
    const second = await agent.generate(request(rung, observation(4, 2)));
    expect(parseReply(rung, first)).toMatchObject({ resolved: true, action: 'pass' });
    expect(parseReply(rung, second)).toMatchObject({ resolved: true, action: 'commit' });
    expect(first.stopReason).toBe(rung === 'R0' ? 'end' : 'tool-use');
    expect(first.responseModel).toBe('policy/commit-at-2');
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usageEstimated).toBe(true);
  });

  it("build at R3: write the family's script where the policy commits, run it on its class and submit what it returned, else decline", async () => {
    const agent = agentFor('policy/commit-at-2?hand=7&cross=8');
    const lcg = { SEED: 141, A: 2300, B: 700, M: 91700, K: 9 };
    const gold = getFamily('lcg').solve(lcg).toString();
    const problem: ChatMessage = { role: 'user', content: 'Problem 4 of 60:\n...' };
    /** The agent's next call on a problem, after the exchanges it already had on it. */
    const call = async (o: Observation, since: ChatMessage[] = []) =>
      readLoopCalls(await agent.generate({ ...request('R3', o), messages: [problem, ...since], inputs: lcg }));
    /** One exchange: the agent's call and the harness's result. */
    const exchange = (id: string, name: string, args: unknown, result: unknown): ChatMessage[] => [
      { role: 'assistant', content: '', toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
      { role: 'tool', toolCallId: id, content: JSON.stringify({ ...(result as object), tokens_remaining: 1000 }) },
    ];
    expect(await call(observation(1, 1))).toEqual([{ tool: 'submit_answer', value: DECLINED_ANSWER }]);
    // Where the policy commits: write, run the written script on the problem's inputs, submit what it returned.
    expect(await call(observation(4, 2))).toEqual([{ tool: 'write_script', name: 'type-0', code: REFERENCE_SCRIPTS.lcg }]);
    const written = exchange('w', 'write_script', { name: 'type-0', code: REFERENCE_SCRIPTS.lcg }, { ok: true });
    expect(await call({ ...observation(4, 2), remaining: 2, held: [0] }, written)).toEqual([
      { tool: 'run_script', name: 'type-0', inputs: lcg },
    ]);
    const ran = exchange('r', 'run_script', { name: 'type-0', inputs: lcg }, { ok: true, returned: gold });
    expect(await call({ ...observation(4, 2), remaining: 2, held: [0] }, [...written, ...ran])).toEqual([
      { tool: 'submit_answer', value: gold },
    ]);
    // A script that failed is not trusted: the agent declines.
    const failed = exchange('r', 'run_script', { name: 'type-0', inputs: lcg }, { ok: false, error: 'throw: boom' });
    expect(await call({ ...observation(4, 2), remaining: 2, held: [0] }, [...written, ...failed])).toEqual([
      { tool: 'submit_answer', value: DECLINED_ANSWER },
    ]);
    // On a class with a script: run it (no write).
    expect(await call({ ...observation(5, 3), held: [0] })).toEqual([{ tool: 'run_script', name: 'type-0', inputs: lcg }]);
    // The policy would commit, but no writes are left: decline.
    expect(await call({ ...observation(6, 2), remaining: 0 })).toEqual([{ tool: 'submit_answer', value: DECLINED_ANSWER }]);
    // Faults: a correct answer by hand; first a run of another class's script.
    expect(await call(observation(7, 1))).toEqual([{ tool: 'submit_answer', value: gold }]);
    expect(await call({ ...observation(8, 1), held: [3] })).toEqual([{ tool: 'run_script', name: 'type-3', inputs: lcg }]);
  });

  it('report the conversation up to their last reply as read from the prompt cache, as a caching provider would', async () => {
    const agent = agentFor('policy/commit-at-2');
    const first = await agent.generate(request('R1', observation(1, 1)));
    expect(first.usage.cachedInputTokens).toBe(0);
    const later: ChatMessage[] = [
      { role: 'user', content: 'Problem 1 of 60: '.padEnd(400, '.') },
      { role: 'assistant', content: 'I skip.', toolCalls: [{ id: 'call_1', name: 'skip_solver', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'Skipped.' },
      { role: 'user', content: 'Problem 2 of 60: '.padEnd(400, '.') },
    ];
    const second = await agent.generate({ ...request('R1', observation(2, 1)), messages: later });
    expect(second.usage.cachedInputTokens).toBeGreaterThan(100);
    // What is not cached: the tool result and the new problem.
    expect(second.usage.inputTokens - second.usage.cachedInputTokens).toBeGreaterThanOrEqual(100);
    expect(second.usage.inputTokens - second.usage.cachedInputTokens).toBeLessThan(110);
  });

  it('inject transport faults for the first n attempts of a turn', async () => {
    const agent = agentFor('policy/eager?transport=2x2');
    await expect(agent.generate(request('R1', observation(2, 1), 1))).rejects.toThrow(/injected transport fault/);
    await expect(agent.generate(request('R1', observation(2, 1), 2))).rejects.toThrow(/attempt 2/);
    await expect(agent.generate(request('R1', observation(2, 1), 3))).resolves.toMatchObject({ toolCalls: [{ name: 'claim_solver' }] });
    const error = await agent.generate(request('R1', observation(2, 1), 1)).catch((e: unknown) => e);
    expect(agent.classify(error)).toEqual({ errorClass: 'transport' });
  });

  it('inject permanent faults and model-level failures', async () => {
    const agent = agentFor('policy/eager?permanent=3&reply=4:several-decisions,5:unknown-function');
    const error = await agent.generate(request('R1', observation(3, 1))).catch((e: unknown) => e);
    expect(agent.classify(error)).toEqual({ errorClass: 'permanent' });
    expect(parseReply('R1', await agent.generate(request('R1', observation(4, 1))))).toMatchObject({ failure: 'several-decisions' });
    expect(parseReply('R1', await agent.generate(request('R1', observation(5, 1))))).toMatchObject({ failure: 'unknown-function' });
    // At R0 two DECISION lines are several decisions only to the strict reader; the paper's reader takes the last.
    const twoLines = await agent.generate(request('R0', observation(4, 1)));
    expect(parseReply('R0', twoLines, { strict: true })).toMatchObject({ failure: 'several-decisions' });
  });

  it('inject a reply cut off by the output limit before any decision', async () => {
    const agent = agentFor('policy/eager?reply=2:cut-off');
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

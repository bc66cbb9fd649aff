import { appendFileSync } from 'node:fs';
import { InputError } from '../../core/errors.js';
import { bayesPolicy } from '../../core/policies/bayes.js';
import { commitAtK } from '../../core/policies/commit-at-k.js';
import { optimalPolicy } from '../../core/policies/optimal.js';
import type { Policy } from '../../core/policies/policy.js';
import type { ModelReply, ToolCall } from '../../core/chat/messages.js';
import type { ModelFailure } from '../../core/rungs/parse-reply.js';
import type { Action } from '../../core/session/session-state.js';
import { ProviderError, type GenerateRequest, type GenerateResponse, type Provider } from './provider.js';
import type { AgentView } from './agent-view.js';
import { builderReply, type BuilderFaults } from './reference-builder.js';

/*
 * `policy/<name>[?faults]`: the core's reference policies played through the
 * provider interface, with no network — for dry runs, tests and benchmarks.
 * Names: eager, commit-at-<k>, bayes, bayes-<alpha>, optimal (Bayes-optimal under the
 * paper's generator recipe: 8 classes, 3 hot sharing 0.85, a trap among the first 3 items).
 * Faults, by decision turn t:
 *   delay=<ms>                    wait before every reply
 *   cost=<usd>                    report this cost per call (to exercise cost caps)
 *   transport=<t>x<n>[,...]       the first n attempts at turn t fail with a transport error
 *   permanent=<t>[,...]           turn t fails with a permanent provider error
 *   reply=<t>:<failure>[,...]     turn t gets a reply that is a model-level failure ('cut-off':
 *                                 a reply without a decision that stops at the output limit)
 * At R3 the agent is the reference builder (reference-builder.ts), which writes where the policy commits
 * (as a split agent's builder: wherever it has a write, the planner having decided), with its own faults by problem t:
 *   hand=<t>[,...]                submit a correct answer worked out by hand
 *   cross=<t>[,...]               first run another class's script (refused)
 *   broken=<t>[,...]              write a script that throws, if writing
 *   silent=<t>x<n>[,...]          first reply n times without a tool call (n = 2 gives the problem up)
 *   overwrite=<t>[,...]           write with no writes left (refused)
 *   wrong=<t>[,...]               submit a wrong answer
 */

type ReplyFailure = ModelFailure;
const REPLY_FAILURES: readonly ReplyFailure[] = [
  'no-decision',
  'cut-off',
  'several-decisions',
  'unknown-function',
  'malformed-arguments',
  'unparsable',
];

export interface PolicyAgentSpec {
  readonly policy: Policy;
  readonly delayMs: number;
  readonly costUsd: number;
  readonly transportFailures: ReadonlyMap<number, number>;
  readonly permanentFailures: ReadonlySet<number>;
  readonly replyFailures: ReadonlyMap<number, ReplyFailure>;
  readonly builder: BuilderFaults;
}

function policyNamed(name: string): Policy {
  if (name === 'eager') return commitAtK(1);
  const atK = /^commit-at-(\d+)$/.exec(name);
  if (atK) return commitAtK(Number(atK[1]));
  const bayes = /^bayes(?:-(\d+(?:\.\d+)?))?$/.exec(name);
  if (bayes) return bayesPolicy(bayes[1] === undefined ? 1 : Number(bayes[1]));
  if (name === 'optimal') return optimalPolicy();
  throw new InputError(`unknown reference policy '${name}' (known: eager, commit-at-<k>, bayes, bayes-<alpha>, optimal)`);
}

function turnList(text: string, what: string): number[] {
  return text.split(',').map((part) => {
    const t = Number(part);
    if (!Number.isInteger(t) || t < 1) throw new InputError(`policy agent ${what}: '${part}' is not a turn number`);
    return t;
  });
}

/** Parses the part of a model id after `policy/`. */
export function parsePolicyAgent(id: string): PolicyAgentSpec {
  const [name = '', query = ''] = id.split('?', 2);
  const params = new URLSearchParams(query);
  const transportFailures = new Map<number, number>();
  const silent = new Map<number, number>();
  const replyFailures = new Map<number, ReplyFailure>();
  for (const [key, value] of params) {
    if (!['delay', 'cost', 'transport', 'permanent', 'reply', 'hand', 'cross', 'broken', 'silent', 'overwrite', 'wrong'].includes(key))
      throw new InputError(`policy agent: unknown option '${key}'`);
    if (key === 'transport' || key === 'silent') {
      for (const part of value.split(',')) {
        const match = /^(\d+)x(\d+)$/.exec(part);
        if (!match) throw new InputError(`policy agent ${key}: '${part}' is not <turn>x<count>`);
        (key === 'transport' ? transportFailures : silent).set(Number(match[1]), Number(match[2]));
      }
    }
    if (key === 'reply') {
      for (const part of value.split(',')) {
        const [turn = '', failure = ''] = part.split(':');
        if (!(REPLY_FAILURES as readonly string[]).includes(failure)) {
          throw new InputError(`policy agent reply: '${failure}' is not one of ${REPLY_FAILURES.join(', ')}`);
        }
        replyFailures.set(turnList(turn, 'reply')[0] as number, failure as ReplyFailure);
      }
    }
  }
  const delayMs = Number(params.get('delay') ?? 0);
  if (!Number.isFinite(delayMs) || delayMs < 0)
    throw new InputError(`policy agent delay: '${params.get('delay')}' is not a duration in ms`);
  const costUsd = Number(params.get('cost') ?? 0);
  if (!Number.isFinite(costUsd) || costUsd < 0) throw new InputError(`policy agent cost: '${params.get('cost')}' is not an amount in USD`);
  const turns = (key: string) => new Set(params.get(key) ? turnList(params.get(key) as string, key) : []);
  return {
    policy: policyNamed(name),
    delayMs,
    costUsd,
    transportFailures,
    permanentFailures: turns('permanent'),
    replyFailures,
    builder: {
      hand: turns('hand'),
      cross: turns('cross'),
      broken: turns('broken'),
      silent,
      overBudget: turns('overwrite'),
      wrong: turns('wrong'),
    },
  };
}

/** A well-formed reply for the action through the offered channel: text at R0, else the tools in their order (commit first). */
function replyFor(request: GenerateRequest, turn: number, action: Action, rationale: string): ModelReply {
  if (request.tools.length === 0) return { text: `${rationale}\nDECISION: ${action === 'commit' ? 'KEEP' : 'PASS'}`, toolCalls: [] };
  const tool = request.tools[action === 'commit' ? 0 : 1];
  if (!tool) throw new Error('policy agent: the rung offers fewer than two decision tools');
  const needsCode = JSON.stringify(tool.parameters).includes('"code"');
  const args = needsCode
    ? { code: 'def solve(inputs: dict) -> float:\n    raise NotImplementedError  # reference policy agent; R2 code is not scored\n' }
    : {};
  return { text: rationale, toolCalls: [{ id: `call_${turn}`, name: tool.name, arguments: JSON.stringify(args) }] };
}

function failingReply(request: GenerateRequest, turn: number, failure: ReplyFailure): ModelReply {
  const call = (name: string, args: string, n = 1): ToolCall => ({ id: `call_${turn}_${n}`, name, arguments: args });
  const [commitTool, passTool] = request.tools;
  const text = request.tools.length === 0;
  switch (failure) {
    case 'no-decision':
      return { text: 'I am not sure yet.', toolCalls: [] };
    case 'cut-off':
      return { text: 'Let me weigh every class seen so far, one at a time, before I', toolCalls: [] };
    case 'several-decisions':
      return text
        ? { text: 'DECISION: KEEP\nDECISION: PASS', toolCalls: [] }
        : { text: '', toolCalls: [call(commitTool?.name ?? 'keep', '{}'), call(passTool?.name ?? 'pass', '{}', 2)] };
    case 'unknown-function':
      return { text: '', toolCalls: [call('solve_everything', '{}')] };
    case 'malformed-arguments':
      return { text: '', toolCalls: [call(commitTool?.name ?? 'keep', '{"code": ')] };
    case 'unparsable':
      return { text: 'DECISION: MAYBE', toolCalls: [] };
  }
}

/** A token estimate from a character count: four characters a token. */
const tokensOf = (chars: number) => Math.ceil(chars / 4);

/** Why a policy agent cannot play a session, or null. The Bayesian comparator needs N disclosed. */
export function policyAgentLimitation(model: string, announceN: boolean): string | null {
  const name = model.slice('policy/'.length).split('?')[0] ?? '';
  return !announceN && name.startsWith('bayes') ? `${model} needs N disclosed (announceN: true / --announce-n)` : null;
}

/**
 * Chaos hook: with `ALLOCBENCH_SERVED_LOG=<file>`, every reply the agent
 * serves is logged there (session, turn, call, attempt, and the time in ms) the
 * moment it is served, outside the run store, so bench/chaos.ts can count calls
 * paid twice and tell those in flight at a kill.
 */
export const SERVED_LOG_VARIABLE = 'ALLOCBENCH_SERVED_LOG';

/**
 * A reference-policy agent for one call: it decides from `view`, the
 * structured form of what the call's prompt says. Without a view (a pre-flight
 * check, a cost estimate) it can be inspected but not asked.
 */
export function policyProvider(model: string, view?: AgentView): Provider {
  const spec = parsePolicyAgent(model.slice('policy/'.length));
  return {
    model,
    apiModel: model,
    local: false,
    preflight: async () => undefined,
    classify: (error) => ({ errorClass: error instanceof ProviderError ? error.errorClass : 'transport' }),
    async generate(request): Promise<GenerateResponse> {
      if (!view) throw new Error(`${model}: a reference agent is asked only within a session, with its view`);
      const o = view.observation;
      const t = o.turn;
      if (spec.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, spec.delayMs));
      if (request.attempt <= (spec.transportFailures.get(t) ?? 0)) {
        throw new ProviderError(`injected transport fault at turn ${t}, attempt ${request.attempt}`, 'transport');
      }
      if (spec.permanentFailures.has(t)) throw new ProviderError(`injected permanent fault at turn ${t}`, 'permanent');
      const failure = spec.replyFailures.get(t);
      const rationale = `Reference policy ${spec.policy.name}: occurrence ${o.occurrence} of this class at turn ${o.turn}, ${o.remaining} of ${o.budget} left.`;
      const scriptRung = request.tools.some((tool) => tool.name === 'write_script');
      const reply = failure
        ? failingReply(request, t, failure)
        : scriptRung
          ? builderReply(request, view, () => (view.role === 'builder' ? 'commit' : spec.policy.decide(o)), spec.builder, rationale)
          : replyFor(request, t, spec.policy.decide(o), rationale);
      // Characters of the prompt up to and including each message; the system prompt comes first.
      let chars = request.system.length;
      const through = request.messages.map((m) => (chars += m.content.length));
      // As a provider with prompt caching reports it: the conversation up to the agent's last reply is read from the cache.
      const lastReply = request.messages.map((m) => m.role).lastIndexOf('assistant');
      const servedLog = process.env[SERVED_LOG_VARIABLE];
      // The conversation's length tells a session's calls apart (an R3 problem has many), the attempt its retries.
      if (servedLog)
        appendFileSync(servedLog, `${request.conversationKey}\t${t}\t${request.messages.length}\t${request.attempt}\t${Date.now()}\n`);
      return {
        ...reply,
        usage: {
          inputTokens: tokensOf(chars),
          outputTokens: tokensOf(reply.text.length + reply.toolCalls.reduce((sum, c) => sum + c.arguments.length, 0)),
          cachedInputTokens: lastReply < 0 ? 0 : tokensOf(through[lastReply] as number),
        },
        usageEstimated: true,
        costUsd: spec.costUsd,
        responseModel: model,
        stopReason: failure === 'cut-off' ? 'length' : reply.toolCalls.length > 0 ? 'tool-use' : 'end',
      };
    },
  };
}

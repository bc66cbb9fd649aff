import { InputError } from '../../core/errors.js';
import { anthropicProvider } from './anthropic-provider.js';
import { ggufProvider } from './gguf-provider.js';
import { googleProvider } from './google-provider.js';
import { modelOptions } from './model-options.js';
import { openAiChatProvider } from './openai-chat-provider.js';
import { openAiResponsesProvider } from './openai-responses-provider.js';
import type { AgentView } from './agent-view.js';
import { CallLimiter, type CallLimit, type CallObserver } from './call-limits.js';
import { recordConcurrencyChange } from './concurrency-log.js';
import { policyProvider } from './policy-provider.js';
import type { Provider } from './provider.js';
import { replayingProvider, ReplaySource } from './replay-provider.js';
import type { ReplaySetting } from '../../core/sweep/sweep-config.js';
import { redactedError } from '../../secrets/redact.js';
import type { RunStore } from '../../run-store/run-store.js';

/** A model id's reasoning_effort, `fallback` unless set; 'default' leaves it to the API (null). */
function reasoningEffort(model: string, fallback: string): { readonly name: string; readonly effort: string | null } {
  const { name, options } = modelOptions(model, ['reasoning_effort']);
  const effort = options.get('reasoning_effort') ?? fallback;
  return { name, effort: effort === 'default' ? null : effort };
}

/** `openai/<model>[?reasoning_effort=E]`: Chat Completions; reasoning_effort is 'none' unless set, as in the paper. */
function openai(model: string): Provider {
  const { name, effort } = reasoningEffort(model, 'none');
  return openAiChatProvider({
    model,
    apiModel: name,
    apiKey: process.env.OPENAI_API_KEY,
    baseURL: process.env.OPENAI_BASE_URL || undefined,
    local: false,
    reasoningEffort: effort,
  });
}

/** `openai-responses/<model>[?reasoning_effort=E]`: the Responses API, reasoning on (medium unless set) with tools at every rung. */
function openaiResponses(model: string): Provider {
  const { name, effort } = reasoningEffort(model, 'medium');
  return openAiResponsesProvider({
    model,
    apiModel: name,
    apiKey: process.env.OPENAI_API_KEY,
    baseURL: process.env.OPENAI_BASE_URL || undefined,
    reasoningEffort: effort,
  });
}

/** `openai-compatible/<served model name>@<base URL>`, e.g. `openai-compatible/qwen@http://localhost:8080/v1`. */
function openaiCompatible(model: string): Provider {
  const rest = model.slice('openai-compatible/'.length);
  const at = rest.indexOf('@');
  const name = rest.slice(0, at);
  const baseURL = rest.slice(at + 1);
  if (at <= 0 || !/^https?:\/\/\S+$/.test(baseURL))
    throw new InputError(`model '${model}': expected openai-compatible/<name>@<http(s) base URL>`);
  return openAiChatProvider({
    model,
    apiModel: name,
    apiKey: process.env.OPENAI_COMPATIBLE_API_KEY,
    baseURL,
    local: true,
    reasoningEffort: null,
  });
}

/** Providers by the prefix of a model id (`provider/model`). */
const FACTORIES: Readonly<Record<string, (model: string) => Provider>> = {
  policy: (model) => policyProvider(model),
  anthropic: (model) => anthropicProvider(model),
  openai,
  'openai-responses': openaiResponses,
  'openai-compatible': openaiCompatible,
  google: (model) => googleProvider(model),
  gguf: ggufProvider,
};

export const PROVIDER_NAMES = Object.keys(FACTORIES);

export function providerName(model: string): string {
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) throw new InputError(`model '${model}': expected provider/model, e.g. policy/commit-at-2`);
  return model.slice(0, slash);
}

/**
 * Builds the provider for a model id; an unknown provider or malformed id is a
 * one-line InputError. What it and the provider's pre-flight throw carries no
 * credential: a server's error may quote the key back, and it is printed.
 */
export function createProvider(model: string): Provider {
  let provider: Provider;
  try {
    const name = providerName(model);
    const factory = FACTORIES[name];
    if (!factory) throw new InputError(`model '${model}': unknown provider '${name}' (known: ${PROVIDER_NAMES.join(', ')})`);
    provider = factory(model);
  } catch (error) {
    throw redactedError(error);
  }
  const preflight = provider.preflight.bind(provider);
  return {
    ...provider,
    async preflight() {
      try {
        await preflight();
      } catch (error) {
        throw redactedError(error);
      }
    },
  };
}

/**
 * One provider instance per model id, created on first use (they may hold
 * clients and loaded models). A reference-policy agent is made for each call
 * instead, with the view it decides from; every other provider ignores the view.
 * Where this worker makes a provider's calls itself, its limit for that
 * provider holds across every model of it, and an adaptive limit's changes
 * are recorded in the run of the call that moved it. A session replayed from a
 * recorded run (`replay`) gets its provider behind the replaying layer, which
 * calls it only on a miss with `miss: live`.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();
  private readonly limiters: ReadonlyMap<string, CallLimiter>;
  private readonly replaySources = new Map<string, ReplaySource>();

  constructor(limits: ReadonlyMap<string, CallLimit> = new Map()) {
    this.limiters = new Map([...limits].map(([provider, limit]) => [provider, new CallLimiter(limit)]));
  }

  /** The provider for a call of a session of the run in `store`, where its limit's changes are recorded. */
  get(model: string, view: AgentView, store: RunStore, replay?: ReplaySetting): Provider {
    const live = this.live(model, view, store);
    if (!replay) return live;
    let source = this.replaySources.get(replay.from);
    if (!source) this.replaySources.set(replay.from, (source = new ReplaySource(replay.from)));
    return replayingProvider(live, source, replay.miss);
  }

  private live(model: string, view: AgentView, store: RunStore): Provider {
    const name = providerName(model);
    if (name === 'policy') return policyProvider(model, view);
    let provider = this.providers.get(model);
    if (!provider) {
      provider = createProvider(model);
      this.providers.set(model, provider);
    }
    const limiter = this.limiters.get(name);
    return limiter ? limited(provider, limiter, (state) => recordConcurrencyChange(store, name, state)) : provider;
  }
}

function limited(provider: Provider, limiter: CallLimiter, changed: CallObserver['changed']): Provider {
  const generate = provider.generate.bind(provider);
  const observer: CallObserver = { throttled: (error) => provider.classify(error).throttled, changed };
  return { ...provider, adaptiveConcurrency: limiter.adaptive, generate: (request) => limiter.run(() => generate(request), observer) };
}

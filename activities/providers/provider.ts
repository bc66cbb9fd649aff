import type { ChatMessage, ModelReply, StopReason, ToolSpec } from '../../core/chat/messages.js';
import type { Usage } from '../../core/chat/usage.js';
import { InputError } from '../../core/errors.js';

export interface GenerateRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** Empty at R0, which answers in text. */
  readonly tools: readonly ToolSpec[];
  /** 'required' makes the model call a tool (the paper's local models at the tool rungs). */
  readonly toolChoice: 'auto' | 'required';
  /** Sampling temperature; null for the provider's default. */
  readonly temperature: number | null;
  readonly maxOutputTokens: number;
  /** The decision turn, or at R3 the session's model call: with `conversationKey` and `attempt`, which call this is. */
  readonly call: number;
  /** 1-based provider attempt for this turn (the rerun rules' count). */
  readonly attempt: number;
  /** Identifies the session, for providers that keep per-conversation state (a local model's KV cache). */
  readonly conversationKey: string;
  /** A seed for sampling, fixed per session, turn and attempt, so local runs repeat exactly. */
  readonly sampleSeed: number;
  readonly signal?: AbortSignal;
}

export interface GenerateResponse extends ModelReply {
  readonly usage: Usage;
  /** True when `usage` is an estimate rather than a provider's count. */
  readonly usageEstimated: boolean;
  /** What the call cost in USD, when the provider's prices are known. */
  readonly costUsd?: number;
  /** The model identity the response reports (checked against the requested model). */
  readonly responseModel: string;
  /** Why the reply ended; null when the provider does not say. */
  readonly stopReason: StopReason | null;
  /** The recorded run this reply was replayed from (replay-provider.ts): its usage is the original's, and nothing was paid. */
  readonly replayedFrom?: string;
}

/**
 * 'transport': worth another attempt (connection reset, timeout, 408, 409,
 * 429, 5xx). 'permanent': the session stops with a mechanical failure (bad
 * request, authentication, context too long).
 */
export type ErrorClass = 'transport' | 'permanent';

export interface ErrorClassification {
  readonly errorClass: ErrorClass;
  /** The provider's requested wait (a 429's retry-after), honoured when longer than the rerun rule's. */
  readonly retryAfterMs?: number;
  /** The provider refused the call for load, and why ('429', '529', '503 overloaded'): the adaptive limit's signal. */
  readonly throttled?: string;
  /** The error is one recorded in this run, replayed (replay-provider.ts). */
  readonly replayedFrom?: string;
}

/** One model behind one interface (cf. Inspect AI's ModelAPI). */
export interface Provider {
  /** The full model id, `provider/model`. */
  readonly model: string;
  /** The model name sent to the API, which its responses should report back. */
  readonly apiModel: string;
  /**
   * Served locally (`gguf/`, `openai-compatible/`): a tool call left in the reply's text is recovered as a call, and at
   * the tool rungs a reply without one is asked again with a format reminder (empty-fence retries, paper F.5).
   */
  readonly local: boolean;
  /**
   * Set where an adaptive limit governs this provider's calls (registry.ts): a throttled reply then slows the calls
   * down and is retried without counting toward the rerun rule's three attempts (provider-call.ts).
   */
  readonly adaptiveConcurrency?: boolean;
  /** Checks, before any session starts, what the provider needs (a key, a server, a model file); throws an InputError. */
  preflight(): Promise<void>;
  generate(request: GenerateRequest): Promise<GenerateResponse>;
  classify(error: unknown): ErrorClassification;
}

/** An error a provider raises itself with its class attached (policy agents' injected faults). */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly errorClass: ErrorClass,
  ) {
    super(message);
  }
}

/** A hosted model's key is not set: both places it may be set (the CLI loads `.env` from the working directory, cli/dot-env.ts). */
export function missingKeyError(model: string, variable: string): InputError {
  return new InputError(`${model}: set ${variable} in the environment or in a .env file in the working directory`);
}

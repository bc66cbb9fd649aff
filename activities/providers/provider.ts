import type { ChatMessage, ModelReply, ToolSpec } from '../../core/chat/messages.js';
import type { Observation } from '../../core/session/observation.js';

/** Tokens one call used, as the provider reports them (or estimates, for policy agents). */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
}

export interface GenerateRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** Empty at R0, which answers in text. */
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: 'auto';
  readonly maxOutputTokens: number;
  /** 1-based provider attempt for this turn (the rerun rules' count). */
  readonly attempt: number;
  /**
   * The same information the rendered prompt carries, structured. Real
   * providers ignore it; reference-policy agents decide from it.
   */
  readonly observation: Observation;
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
  readonly stopReason: string | null;
}

/**
 * 'transport': worth another attempt (connection reset, timeout, 408, 409,
 * 429, 5xx). 'permanent': the session stops with a mechanical failure (bad
 * request, authentication, context too long).
 */
export type ErrorClass = 'transport' | 'permanent';

/** One model behind one interface (cf. Inspect AI's ModelAPI). */
export interface Provider {
  /** The full model id, `provider/model`. */
  readonly model: string;
  generate(request: GenerateRequest): Promise<GenerateResponse>;
  classify(error: unknown): ErrorClass;
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

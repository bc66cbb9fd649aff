/** Tokens one call used, as the provider reports them (or estimates, for policy agents). */
export interface Usage {
  /** Every input token of the request, cached or not. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache. */
  readonly cachedInputTokens: number;
  /** Input tokens written to the prompt cache (Anthropic bills these separately). */
  readonly cacheWriteTokens?: number;
  /** Output tokens spent on reasoning (counted in outputTokens too), where the provider reports them. */
  readonly reasoningTokens?: number;
}

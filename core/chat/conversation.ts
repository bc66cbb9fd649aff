import type { ChatMessage, ModelReply } from './messages.js';

/** One completed decision turn (R3: one model call) as the conversation remembers it. */
export interface Exchange {
  /** Absent at an R3 call that only tool results preceded. */
  readonly user?: string;
  readonly reply: ModelReply;
  readonly toolResults: readonly { readonly toolCallId: string; readonly content: string }[];
}

/**
 * The messages of the next request: every completed exchange, append-only, then
 * the new user message. Each turn's request extends the previous one, so a
 * provider's prompt cache can reuse it.
 */
export function conversation(exchanges: readonly Exchange[], nextUser: string | undefined): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const exchange of exchanges) {
    if (exchange.user !== undefined) messages.push({ role: 'user', content: exchange.user });
    const { text, toolCalls, replay } = exchange.reply;
    messages.push({ role: 'assistant', content: text, toolCalls, ...(replay && { replay }) });
    for (const result of exchange.toolResults) messages.push({ role: 'tool', ...result });
  }
  if (nextUser !== undefined) messages.push({ role: 'user', content: nextUser });
  return messages;
}

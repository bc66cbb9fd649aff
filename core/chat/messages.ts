/**
 * A provider-neutral conversation. Adapters translate it to each provider's
 * wire format; transcripts store it as is.
 */

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments exactly as the model produced them (JSON text, possibly malformed). */
  readonly arguments: string;
}

/** A tool offered to the model; `parameters` is a JSON schema derived from a zod schema. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/**
 * What a provider needs sent back exactly as it came when a reply is part of a
 * later request: Gemini's parts with their thought signatures, the Responses
 * API's output items with their encrypted reasoning. Opaque to the harness
 * (JSON, kept in the transcript with the reply); `format` names the wire
 * format that wrote it, and a provider that speaks another ignores it.
 */
export interface Replay {
  readonly format: string;
  readonly items: readonly unknown[];
}

export type ChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly ToolCall[]; readonly replay?: Replay }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

/** What a model said in one reply. */
export interface ModelReply {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly replay?: Replay;
}

/** The reply part of a provider's response (or of any object that carries one), as records keep it. */
export function replyOf(reply: ModelReply): ModelReply {
  return { text: reply.text, toolCalls: reply.toolCalls, ...(reply.replay && { replay: reply.replay }) };
}

/** Why a reply ended, across providers: a finished turn, a tool call, the output limit, a content filter, or something else. */
export type StopReason = 'end' | 'tool-use' | 'length' | 'content-filter' | 'other';

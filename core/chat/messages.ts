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

export type ChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

/** What a model said in one reply. */
export interface ModelReply {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** Why a reply ended, across providers: a finished turn, a tool call, the output limit, a content filter, or something else. */
export type StopReason = 'end' | 'tool-use' | 'length' | 'content-filter' | 'other';
